// Package e2e runs svcplane processes in network namespaces the tests
// create (root, iproute2 and Debian's etcd needed): several `svcplane
// server` processes on one external etcd, with the addresses they bind and
// advertise on the namespace's loopback interface. No traffic leaves the
// namespace; it has no default route. Upstream's own kube-proxy runs
// against `svcplane server` when ../shared/tools/build-upstream.sh has built
// it (kubeproxy_test.go; skipped otherwise).
package e2e
