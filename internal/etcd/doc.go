// Package etcd runs svcplane's embedded single-member etcd. It serves only
// on unix sockets inside the data directory (client: <dir>/etcd.sock, peer:
// <dir>/etcd-peer.sock, both mode 0600 in a 0700 directory): no TCP port
// exists, so no other local user can read or write storage, which would
// bypass every API check. Several servers with different data dirs run
// side by side without picking ports, and a restart finds its member by
// path.
package etcd
