// Package etcd runs svcplane's embedded single-member etcd. Its client and
// peer ports are picked free on loopback at first start and kept in the data
// dir, so several servers with different data dirs run side by side and a
// restart finds its member again.
package etcd
