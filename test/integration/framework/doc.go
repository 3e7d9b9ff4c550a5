// Package framework starts an in-process svcplane API server on a real
// embedded etcd (temporary data dir, free port) for integration tests.
package framework
