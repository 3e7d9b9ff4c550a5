package healthcheck

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// ProxyHealth tracks sync progress.
type ProxyHealth struct {
	clock   clock.Clock
	timeout time.Duration

	mu           sync.Mutex
	lastUpdated  time.Time
	oldestQueued time.Time // zero: nothing waiting
	nodeDeleting bool
	// OnRequest, when set, is told each answer (path, status) for metrics.
	OnRequest func(path string, code int)
}

// NewProxyHealth returns a tracker with the given health timeout.
func NewProxyHealth(clk clock.Clock, timeout time.Duration) *ProxyHealth {
	return &ProxyHealth{clock: clk, timeout: timeout}
}

// QueuedUpdate records that a change is waiting for a sync.
func (h *ProxyHealth) QueuedUpdate() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.oldestQueued.IsZero() {
		h.oldestQueued = h.clock.Now()
	}
}

// Updated records a successful sync.
func (h *ProxyHealth) Updated() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lastUpdated = h.clock.Now()
	h.oldestQueued = time.Time{}
}

// SetNodeDeleting records whether the node has a deletion timestamp.
func (h *ProxyHealth) SetNodeDeleting(d bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.nodeDeleting = d
}

// Health reports liveness and the last update time.
func (h *ProxyHealth) Health() (healthy bool, lastUpdated, now time.Time, nodeEligible bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now = h.clock.Now()
	healthy = h.oldestQueued.IsZero() || now.Sub(h.oldestQueued) < h.timeout
	return healthy, h.lastUpdated, now, !h.nodeDeleting
}

// Handler serves /healthz and /livez.
func (h *ProxyHealth) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { h.serve(w, "/healthz", true) })
	mux.HandleFunc("/livez", func(w http.ResponseWriter, r *http.Request) { h.serve(w, "/livez", false) })
	return mux
}

func (h *ProxyHealth) serve(w http.ResponseWriter, path string, checkNode bool) {
	healthy, last, now, eligible := h.Health()
	code := http.StatusOK
	if !healthy || (checkNode && !eligible) {
		code = http.StatusServiceUnavailable
	}
	body := map[string]any{"lastUpdated": last.String(), "currentTime": now.String()}
	if checkNode {
		body["nodeEligible"] = eligible
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(body)
	if h.OnRequest != nil {
		h.OnRequest(path, code)
	}
}

// CodeLabel renders an HTTP status for a metric label.
func CodeLabel(code int) string { return strconv.Itoa(code) }
