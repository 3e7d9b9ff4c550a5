// Package kubelet is the node agent's kubelet API: the HTTPS server the API
// server proxies pods/log, pods/exec, pods/attach, pods/portforward and
// nodes/proxy to, as kube-apiserver does to a kubelet's port 10250.
//
// It serves, per node:
//
//	GET      /containerLogs/{namespace}/{pod}/{container}   the kubelet's log options
//	GET|POST /exec/{namespace}/{pod}[/{uid}]/{container}    SPDY v1–v4.channel.k8s.io, WebSocket v5 (and the legacy channels)
//	GET|POST /attach/{namespace}/{pod}[/{uid}]/{container}  400: no runtime of svcplane attaches
//	GET|POST /portForward/{namespace}/{pod}[/{uid}]         SPDY portforward.k8s.io, WebSocket-tunnelled SPDY (and the v4 channels)
//	GET      /pods                                          the node's pods as a v1 PodList
//	GET      /healthz                                       ok
//	GET      /metrics                                       the kubelet's kubelet_node_name, kubelet_running_pods, kubelet_running_containers
//
// The streaming protocols' server side is k8s.io/cri-streaming's, the
// kubelet's own. kubectl's WebSocket v5 exec and WebSocket-tunnelled
// port-forward (which an API server passes on as they are to nodes that
// declare ExtendWebSocketsToKubelet, as the agent's do) are translated to
// SPDY here with k8s.io/apiserver's translators, over an in-process pipe
// to the same handlers, as the kubelet translates them to its CRI
// streaming server.
//
// Every request is authenticated and authorized as the kubelet does it:
// client certificates signed by the cluster CA (and bearer tokens by
// TokenReview when a client is given), then a SubjectAccessReview to the
// API server for the node's nodes/<subresource> (the kubelet's mapping:
// /pods → nodes/pods then nodes/proxy, /healthz → nodes/healthz then
// nodes/proxy, everything else here → nodes/proxy), with the kubelet's
// decision cache (allowed 5 m, denied 30 s).
//
// Pods are found through a Lookup the agent hands in: (namespace, name) →
// the pod, its node and the container.Streams of its runtime. A request
// for a pod of another node than the one whose endpoint was dialled is a
// 404, as on a kubelet. A runtime that runs no processes (the simulated
// one, NoProcesses) makes exec and port-forward a 400 with its reason,
// before any connection upgrade, so kubectl prints the reason.
//
// This is a lab, not an isolation boundary: exec runs host binaries in
// the pod's network namespace only (the netns runtime), with the host's
// filesystem and the agent's privileges.
package kubelet
