package bench

import (
	"strings"
	"testing"
	"time"
)

// parseSyncs reads the proxy's sync histograms from the text format, and
// since() turns two readings into the syncs between them.
func TestParseSyncs(t *testing.T) {
	read := func(text string) syncCounts {
		t.Helper()
		c, err := parseSyncs(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	before := read(`# HELP kubeproxy_sync_full_proxy_rules_duration_seconds SyncProxyRules latency in seconds for full resyncs
# TYPE kubeproxy_sync_full_proxy_rules_duration_seconds histogram
kubeproxy_sync_full_proxy_rules_duration_seconds_bucket{le="0.001"} 0
kubeproxy_sync_full_proxy_rules_duration_seconds_sum 0.5
kubeproxy_sync_full_proxy_rules_duration_seconds_count 1
kubeproxy_sync_partial_proxy_rules_duration_seconds_sum 0
kubeproxy_sync_partial_proxy_rules_duration_seconds_count 0
kubeproxy_sync_proxy_rules_duration_seconds_sum 0.5
kubeproxy_sync_proxy_rules_duration_seconds_count 1
`)
	if before.fullCount != 1 || before.fullSum != 0.5 || before.total() != 1 {
		t.Fatalf("first reading: %+v", before)
	}
	after := read(`kubeproxy_sync_full_proxy_rules_duration_seconds_sum 0.5
kubeproxy_sync_full_proxy_rules_duration_seconds_count 1
kubeproxy_sync_partial_proxy_rules_duration_seconds_sum 0.012
kubeproxy_sync_partial_proxy_rules_duration_seconds_count 2
kubeproxy_sync_proxy_rules_last_timestamp_seconds 1.7641728005e+09
`)
	n, full, d := after.since(before)
	if n != 2 || full != 0 || d != 12*time.Millisecond {
		t.Errorf("since: %d syncs (%d full) of %s, want 2 (0 full) of 12ms", n, full, d)
	}
	if got, want := after.lastSyncTime(), time.Unix(1764172800, 5e8); got.Sub(want).Abs() > time.Microsecond {
		t.Errorf("last sync at %s, want %s", got, want)
	}
	if _, err := parseSyncs(strings.NewReader("kubeproxy_sync_full_proxy_rules_duration_seconds_sum x\n")); err == nil {
		t.Error("a malformed value must be an error")
	}
}
