// Package container holds what the node agent and its kubelet API ask of a
// pod runtime beyond running pods: a container's log, running a command in
// a pod (exec) and forwarding a connection to a pod's port. A runtime that
// runs real processes (the netns runtime) implements Streams; the
// simulated runtime runs none and answers ErrNotSupported. Pending and
// Initialized derive the pod's phase and Initialized condition from the
// container states a runtime reports, as the kubelet does.
package container
