package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func get(t *testing.T, h http.Handler, path string) (int, string, http.Header) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(body), rec.Result().Header
}

func TestMetricsServerProxyMode(t *testing.T) {
	for _, mode := range []string{ModeIPTables, ModeIPVS, ModeNFTables, ModeUserspace} {
		h := metricsHandler(prometheus.NewRegistry(), mode, false)
		code, body, hdr := get(t, h, "/proxyMode")
		if code != http.StatusOK || body != mode || hdr.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("/proxyMode: %d %q %q, want 200 %q text/plain", code, body, hdr.Get("Content-Type"), mode)
		}
	}
}

func TestMetricsServerPaths(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "kubeproxy_test_total"}))
	h := metricsHandler(reg, ModeIPTables, false)
	if code, body, _ := get(t, h, "/metrics"); code != http.StatusOK || !strings.Contains(body, "kubeproxy_test_total 0") {
		t.Errorf("/metrics: %d %q", code, body)
	}
	if code, body, _ := get(t, h, "/healthz"); code != http.StatusOK || body != "ok" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, _, _ := get(t, h, "/debug/pprof/"); code != http.StatusNotFound {
		t.Errorf("/debug/pprof/ without profiling: %d", code)
	}
	if code, _, _ := get(t, metricsHandler(reg, ModeIPTables, true), "/debug/pprof/"); code != http.StatusOK {
		t.Errorf("/debug/pprof/ with profiling: %d", code)
	}
}
