// Package e2e runs the built svcplane binary in network namespaces the tests
// create (root, iproute2, nftables/iptables and Debian's etcd needed; as
// non-root every test says SKIP with the reason):
//
//   - bootstrap_test.go: several `svcplane server` processes on one
//     external etcd, with the addresses they bind and advertise on the
//     namespace's loopback interface: the `kubernetes` Service's endpoints
//     follow the servers (lease reconciler), and the servers survive the
//     loss of an etcd member.
//   - proxy_test.go: `svcplane up` with each --proxy-mode in a lab's node
//     namespace (internal/proxy/proxytest/netlab: client and backend
//     namespaces over veth pairs): real TCP/UDP to ClusterIPs and
//     NodePorts, the ipvs → iptables fallback, rules outliving the process
//     and `svcplane proxy --cleanup`; uprestart_test.go: `up` restarted
//     under a client loop loses no request and changes no object.
//   - crash_test.go, etcdoutage_test.go, fulldisk_test.go (on the host's
//     loopback only, free ports): 32 clients creating Services while a
//     server is killed and restarted (two servers on one etcd, and `up`);
//     an external etcd stopped for 30 s; a low disk under `up` (tmpfs);
//     a second `up` on a data dir in use.
//   - kubeproxy_test.go: upstream's own kube-proxy against `svcplane
//     server`, when ../shared/tools/build-upstream.sh has built it
//     (skipped otherwise).
//
// Only addresses inside namespaces the test made itself are used; they have
// no default route, so no traffic leaves them.
package e2e
