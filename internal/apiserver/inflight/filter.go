package inflight

import (
	"net/http"
	"time"

	"k8s.io/apiserver/pkg/endpoints/metrics"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	genericfilters "k8s.io/apiserver/pkg/server/filters"
	"k8s.io/utils/clock"
)

// DefaultWait is how long a node heartbeat waits for a seat: APF's queue
// wait limit, a quarter of the 60 s request timeout.
const DefaultWait = 15 * time.Second

// Config is the limits.
type Config struct {
	// Reads and Mutating are the plain filter's seats
	// (--max-requests-inflight, --max-mutating-requests-inflight); 0 and 0
	// turn it off.
	Reads, Mutating int
	// NodeHigh is the node heartbeats' seats (NodeHighSeats); 0 sends them
	// to the plain filter with the rest.
	NodeHigh int
	// NodeGroups are further groups whose users' requests count as node
	// heartbeats beside system:nodes' (svcplane's node simulator).
	NodeGroups []string
	// Wait bounds a node heartbeat's wait for a seat.
	Wait time.Duration
	// LongRunning tells requests that take no seat (watches, proxy, logs).
	LongRunning apirequest.LongRunningRequestCheck
	// Clock times the wait.
	Clock clock.Clock
}

// WithLimits wraps h: node heartbeats (IsNodeHigh) in their own pool,
// everything else through k8s.io/apiserver's WithMaxInFlightLimit. It must
// run where the chain has set the request's RequestInfo and user.
func WithLimits(h http.Handler, c Config) http.Handler {
	rest := genericfilters.WithMaxInFlightLimit(h, c.Reads, c.Mutating, c.LongRunning)
	if c.NodeHigh <= 0 {
		return rest
	}
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	seats := make(chan struct{}, c.NodeHigh)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		ri, _ := apirequest.RequestInfoFrom(ctx)
		u, _ := apirequest.UserFrom(ctx)
		if !c.IsNodeHigh(u, ri) || (c.LongRunning != nil && c.LongRunning(r, ri)) {
			rest.ServeHTTP(w, r)
			return
		}
		if !take(r, seats, c) {
			metrics.RecordDroppedRequest(r, ri, metrics.APIServerComponent, mutating(ri.Verb))
			metrics.RecordRequestTermination(r, ri, metrics.APIServerComponent, http.StatusTooManyRequests)
			w.Header().Set("Retry-After", "1")
			http.Error(w, "Too many requests, please try again later.", http.StatusTooManyRequests)
			return
		}
		defer func() { <-seats }()
		h.ServeHTTP(w, r)
	})
}

// take takes a seat, waiting up to c.Wait (or until the request ends).
func take(r *http.Request, seats chan struct{}, c Config) bool {
	select {
	case seats <- struct{}{}:
		return true
	default:
	}
	if c.Wait <= 0 {
		return false
	}
	timer := c.Clock.NewTimer(c.Wait)
	defer timer.Stop()
	select {
	case seats <- struct{}{}:
		return true
	case <-timer.C():
		return false
	case <-r.Context().Done():
		return false
	}
}

// mutating is the plain filter's split: every verb but get, list and watch.
func mutating(verb string) bool {
	switch verb {
	case "get", "list", "watch":
		return false
	}
	return true
}
