package plane

import (
	"net/http"
)

// ControllerMutatingInFlight bounds the mutating requests the in-process
// controller manager has in flight at once, all its identities together.
// The server refuses mutating requests beyond --max-mutating-requests-inflight
// (200, kube-apiserver's default) with 429 and Retry-After: 1 s; the
// ReplicaSet controller alone starts up to 256 creations at once (its
// slow-start batch) beside the scheduler's binds and the agents' status
// writes, and at 10,000 replicas 4,000 of its creations were refused and
// each retried a second later. kube-controller-manager never gets there:
// its client is rate-limited (--kube-api-qps) and kube-apiserver's
// priority and fairness queues the excess; here the excess waits in the
// client instead.
const ControllerMutatingInFlight = 64

// inFlightLimit is a RoundTripper wrapper that lets at most cap(slots)
// mutating requests through at once; reads and watches pass freely.
type inFlightLimit struct{ slots chan struct{} }

func newInFlightLimit(n int) *inFlightLimit { return &inFlightLimit{slots: make(chan struct{}, n)} }

// wrap is a rest.Config WrapTransport.
func (l *inFlightLimit) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if !mutating(req.Method) {
			return rt.RoundTrip(req)
		}
		select {
		case l.slots <- struct{}{}:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
		defer func() { <-l.slots }()
		return rt.RoundTrip(req)
	})
}

func mutating(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
