package apiserver

import (
	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/svcplane/svcplane/internal/apiserver/inflight"
)

// inFlightLimits takes the in-flight limits out of the generic chain: the
// generic max-in-flight filter (400 reads, 200 mutating) becomes
// inflight.WithLimits, the same filter for everything but node heartbeats,
// which get node-high's seats of their own (upstream's API Priority and
// Fairness, simplified; internal/apiserver/inflight). It runs inside
// authorization rather than before it, as it must see the request's user
// and RequestInfo and the generic chain offers no slot in between.
func inFlightLimits(c *genericapiserver.Config) inflight.Config {
	l := inflight.Config{Reads: c.MaxRequestsInFlight, Mutating: c.MaxMutatingRequestsInFlight,
		NodeHigh:   inflight.NodeHighSeats(c.MaxRequestsInFlight, c.MaxMutatingRequestsInFlight),
		NodeGroups: []string{GroupNodeSimulators}, Wait: inflight.DefaultWait, LongRunning: c.LongRunningFunc}
	c.MaxRequestsInFlight, c.MaxMutatingRequestsInFlight = 0, 0
	return l
}
