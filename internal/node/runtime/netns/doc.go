// Package netns is the node agent's real pod runtime: every node is a
// network namespace attached to a host bridge, every pod a network
// namespace with a veth into its node, and containers run what their
// image says, in-process or as host processes inside the pod's namespace.
//
// Network (IPv4; host-gw style, no overlay, no bridge netfilter):
//
//	host netns ── bridge Config.Bridge (Config.HostAddress, e.g. 10.250.0.1/16)
//	   │  routes: each node's pod CIDR via its InternalIP; the service CIDRs via the first node
//	   ├─ veth ── node netns "eth0" <InternalIP>/<bridge prefix>, ip_forward=1
//	   │            routes: other nodes' pod CIDRs via their InternalIPs; <podIP>/32 dev <pod veth>;
//	   │            default via the host's bridge address (the API server, the DNS)
//	   │            └─ veth ── pod netns "eth0" <podIP>/32, default via 169.254.1.1 (a
//	   │                        permanent neighbour: the node-side veth's MAC), lo up
//
// Pod traffic is routed, never switched, through its node's namespace, so
// that node's service proxy (a `svcplane proxy` child process started in the
// node namespace, Config.ProxyCommand) sees every packet of a pod, as on a
// real node. Namespaces are anonymous: the runtime holds them by file
// descriptor (and the processes it started in them hold them), so a
// crashed agent leaves nothing but the host bridge, which it removes at
// start; Close removes everything (stop: no namespace, link or route is
// left). Children get SIGKILL when the agent dies (Pdeathsig).
//
// Containers: the image decides what runs (no image is pulled):
// registry.k8s.io/pause holds the namespace; the agnhost image runs
// netexec, serve-hostname, connect, crd-conversion-webhook,
// test-webserver (the container's volumes only), dns-suffix,
// dns-server-list, entrypoint-tester (also as /agnhost-2) and pause
// in-process with their flags (pause without arguments, its image's CMD;
// exec runs these built-ins too; their files, such as certificates, are
// read from the pod's Secret, ConfigMap and projected volumes); a command that names a program on the host runs that program in
// the pod's network namespace with the container's environment and, in a
// mount namespace of its own, the pod's /etc/resolv.conf (the kubelet's
// for its dnsPolicy) and its emptyDir volumes at their mount paths (the
// rest of the filesystem is the host's); an image matching
// Config.UnpullableImages waits in ErrImagePull/ImagePullBackOff; any other image serves HTTP
// on each declared TCP containerPort (and echoes on UDP ones) answering the
// pod's name. In-process servers open their sockets on a locked OS thread
// that has entered the pod's namespace. Restart policies, CrashLoopBackOff,
// readiness and liveness probes (httpGet, tcpSocket, exec) are run for real
// on the injected clock and reported through container.Reporter; logs,
// exec and port-forward through container.Streams.
package netns
