package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// TestScrape observes through the helpers and scrapes /metrics as
// Prometheus would, checking kube-proxy's metric names and values.
func TestScrape(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := New(reg)
	now := time.Unix(2000, 0)
	m.ObserveSync(true, 400*time.Millisecond, 10, now)
	m.ObserveSync(false, 20*time.Millisecond, 2, now.Add(time.Second))
	m.ObserveNetworkProgramming([]time.Time{now.Add(-1500 * time.Millisecond), now.Add(-30 * time.Second)}, now)
	m.ObserveHealthRequest("/healthz", "200")
	m.ObserveHealthRequest("/healthz", "503")
	m.ObserveHealthRequest("/livez", "200")

	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	body := string(b)
	for _, want := range []string{
		"kubeproxy_sync_proxy_rules_duration_seconds_count 2",
		"kubeproxy_sync_full_proxy_rules_duration_seconds_count 1",
		"kubeproxy_sync_full_proxy_rules_duration_seconds_sum 0.4",
		"kubeproxy_sync_partial_proxy_rules_duration_seconds_count 1",
		"kubeproxy_sync_proxy_rules_last_timestamp_seconds 2001",
		"kubeproxy_network_programming_duration_seconds_count 2",
		`kubeproxy_network_programming_duration_seconds_bucket{le="2"} 1`,
		`kubeproxy_network_programming_duration_seconds_bucket{le="30"} 2`,
		`kubeproxy_proxy_healthz_total{code="200"} 1`,
		`kubeproxy_proxy_healthz_total{code="503"} 1`,
		`kubeproxy_proxy_livez_total{code="200"} 1`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("scrape lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(body)
	}
}
