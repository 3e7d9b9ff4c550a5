// Package sim is the simulated container runtime of the node agent. It
// runs no process: "running" a pod allocates it one IP per pod CIDR of its
// node (unique within that CIDR while the pod lives, freed when it is
// killed) and records when it started, from an injected clock, so the
// agent can tell when its readiness probe's initialDelaySeconds has passed.
// One Runtime serves every node of an agent process and is safe for
// concurrent use. It implements container.Streams as a runtime without
// processes: a running pod's log is empty, exec and port-forward are
// container.ErrNotSupported (RunsNoProcesses: the kubelet API refuses them
// before upgrading the connection).
package sim
