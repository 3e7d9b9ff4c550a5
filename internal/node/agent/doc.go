// Package agent is svcplane's node agent: it plays the kubelet's part for
// one or many (simulated) nodes in one process.
//
// For every node it registers a Node (addresses, capacity and allocatable,
// the hostname and zone labels, the kubelet's conditions), renews a Lease
// in kube-node-lease every LeaseDuration/4 (as the kubelet does: 10 s of
// 40 s) and posts the node status when it differs from what the API server
// holds or NodeStatusReportFrequency has passed. It waits for the node IPAM
// controller to give the node spec.podCIDRs before running pods there.
//
// Pods bound to its nodes are run on a Runtime. A runtime whose containers
// run on their own (runtime/netns) reports their states, readiness and the
// pod's phase (container.Reporter) and the agent writes those; a Stopper
// gets a deleted pod's containers to end (SIGTERM, SIGKILL at its
// deletionTimestamp) before the agent deletes it; one that is an
// io.Closer is closed when Run returns. On the simulated runtime
// (runtime/sim, the default) pods get one
// IP per pod CIDR, phase Running and container statuses at once, and turn
// Ready when their readiness probes' initialDelaySeconds have passed (no
// probe: at once) unless annotated svcplane.io/ready: "false". A deleted pod
// ends at once, as a pause container does at SIGTERM (the agent kills it and
// deletes it with grace 0); svcplane.io/termination-delay: <duration> keeps
// it running and serving (EndpointSlices: not ready, serving, terminating)
// that long, at most its grace period. activeDeadlineSeconds fails a pod with reason
// DeadlineExceeded, as the kubelet does.
//
// With Config.KubeletAPI the agent serves each node's kubelet API
// (internal/node/kubelet) on the runtime's container.Streams, and reports
// where: the port in status.daemonEndpoints.kubeletEndpoint, the address
// the API server dials in the Node annotation svcplane.io/kubelet-address
// (none when the node listens on its own address), and the declared
// feature ExtendWebSocketsToKubelet.
//
// Scale: one pod informer for all nodes (field selector spec.nodeName!="",
// filtered in-process, managedFields dropped), one rate-limited work queue
// of pods with a bounded number of workers, and one delaying queue of node
// heartbeats whose first round is spread over the renew interval; lease
// renewals and status writes use their own client so pod traffic never
// delays a heartbeat, and the informers may have a client (a connection)
// of their own (Config.WatchClient), so that the watch's events do not
// queue behind the workers' writes. All time comes from an injected clock.
package agent
