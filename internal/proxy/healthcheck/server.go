package healthcheck

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/proxy"
)

// ProxyHealth tracks sync progress per IP family and the node's
// eligibility.
type ProxyHealth struct {
	clock   clock.Clock
	timeout time.Duration

	mu           sync.Mutex
	lastUpdated  map[proxy.IPFamily]time.Time
	oldestQueued map[proxy.IPFamily]time.Time
	nodeEligible bool
	// OnRequest, when set, is told each answer (path, status) for metrics.
	OnRequest func(path string, code int)
}

// NewProxyHealth returns a tracker with the given health timeout. The
// node counts as eligible until SyncNode says otherwise.
func NewProxyHealth(clk clock.Clock, timeout time.Duration) *ProxyHealth {
	return &ProxyHealth{clock: clk, timeout: timeout, nodeEligible: true,
		lastUpdated: map[proxy.IPFamily]time.Time{}, oldestQueued: map[proxy.IPFamily]time.Time{}}
}

// QueuedUpdate records that a change for the family's proxier is waiting
// for a sync.
func (h *ProxyHealth) QueuedUpdate(family proxy.IPFamily) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, set := h.oldestQueued[family]; !set {
		h.oldestQueued[family] = h.clock.Now()
	}
}

// Updated records a successful sync of the family's proxier.
func (h *ProxyHealth) Updated(family proxy.IPFamily) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.oldestQueued, family)
	h.lastUpdated[family] = h.clock.Now()
}

// SyncNode records the node's eligibility.
func (h *ProxyHealth) SyncNode(n proxy.Node) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.nodeEligible = n.Eligible()
}

// IsHealthy reports the proxiers' health, ignoring the node.
func (h *ProxyHealth) IsHealthy() bool {
	healthy, _, _, _ := h.Health()
	return healthy
}

// Health reports the proxiers' health, the last update time (of the
// late proxier when unhealthy, else the latest), now and eligibility.
func (h *ProxyHealth) Health() (healthy bool, lastUpdated, now time.Time, nodeEligible bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now = h.clock.Now()
	for family, updated := range h.lastUpdated {
		if updated.After(lastUpdated) {
			lastUpdated = updated
		}
		if queued, set := h.oldestQueued[family]; set && now.Sub(queued) >= h.timeout {
			return false, updated, now, h.nodeEligible
		}
	}
	return true, lastUpdated, now, h.nodeEligible
}

// Handler serves /healthz and /livez.
func (h *ProxyHealth) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { h.serve(w, "/healthz", true) })
	mux.HandleFunc("/livez", func(w http.ResponseWriter, _ *http.Request) { h.serve(w, "/livez", false) })
	return mux
}

func (h *ProxyHealth) serve(w http.ResponseWriter, path string, checkNode bool) {
	healthy, last, now, eligible := h.Health()
	if checkNode {
		healthy = healthy && eligible
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	code := http.StatusOK
	if !healthy {
		code = http.StatusServiceUnavailable
	} else {
		last = now // upstream: a healthy proxy reports a recent lastUpdated
	}
	w.WriteHeader(code)
	if checkNode {
		fmt.Fprintf(w, `{"lastUpdated": %q,"currentTime": %q, "nodeEligible": %v}`, last, now, eligible)
	} else {
		fmt.Fprintf(w, `{"lastUpdated": %q,"currentTime": %q}`, last, now)
	}
	if h.OnRequest != nil {
		h.OnRequest(path, code)
	}
}

// CodeLabel renders an HTTP status for a metric label.
func CodeLabel(code int) string { return strconv.Itoa(code) }
