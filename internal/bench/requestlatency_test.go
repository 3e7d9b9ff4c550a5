package bench

import (
	"math"
	"testing"
)

const metricsText = `# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.
# TYPE apiserver_request_duration_seconds histogram
apiserver_request_duration_seconds_bucket{component="apiserver",verb="POST",resource="pods",le="0.1"} 90
apiserver_request_duration_seconds_bucket{component="apiserver",verb="POST",resource="pods",le="0.5"} 99
apiserver_request_duration_seconds_bucket{component="apiserver",verb="POST",resource="pods",le="1"} 100
apiserver_request_duration_seconds_bucket{component="apiserver",verb="POST",resource="pods",le="+Inf"} 100
apiserver_request_duration_seconds_sum{component="apiserver",verb="POST",resource="pods"} 5
apiserver_request_duration_seconds_count{component="apiserver",verb="POST",resource="pods"} 100
apiserver_request_duration_seconds_bucket{component="apiserver",verb="PUT",resource="pods",le="0.1"} 100
apiserver_request_duration_seconds_bucket{component="apiserver",verb="PUT",resource="pods",le="0.5"} 100
apiserver_request_duration_seconds_bucket{component="apiserver",verb="PUT",resource="pods",le="1"} 100
apiserver_request_duration_seconds_bucket{component="apiserver",verb="PUT",resource="pods",le="+Inf"} 100
apiserver_request_duration_seconds_sum{component="apiserver",verb="PUT",resource="pods"} 1
apiserver_request_duration_seconds_count{component="apiserver",verb="PUT",resource="pods"} 100
apiserver_request_duration_seconds_bucket{component="apiserver",verb="LIST",resource="pods",le="0.1"} 0
apiserver_request_duration_seconds_bucket{component="apiserver",verb="LIST",resource="pods",le="0.5"} 0
apiserver_request_duration_seconds_bucket{component="apiserver",verb="LIST",resource="pods",le="1"} 0
apiserver_request_duration_seconds_bucket{component="apiserver",verb="LIST",resource="pods",le="+Inf"} 50
apiserver_request_duration_seconds_sum{component="apiserver",verb="LIST",resource="pods"} 500
apiserver_request_duration_seconds_count{component="apiserver",verb="LIST",resource="pods"} 50
`

func TestMutatingLatencyQuantile(t *testing.T) {
	h, err := parseMutatingLatency([]byte(metricsText))
	if err != nil {
		t.Fatal(err)
	}
	// 200 mutating requests (LIST excluded): 190 ≤ 0.1 s, 9 in (0.1, 0.5], 1 in (0.5, 1].
	if h[math.Inf(1)] != 200 || h[0.1] != 190 {
		t.Fatalf("histogram %v", h)
	}
	for _, tc := range []struct{ q, want float64 }{
		{0.5, 0.1 * 100 / 190},        // inside the first bucket
		{0.99, 0.1 + 0.4*(198-190)/9}, // inside the second
		{1, 1},
	} {
		if got, n := h.quantile(tc.q); math.Abs(got-tc.want) > 1e-9 || n != 200 {
			t.Errorf("q%v = %v (%v requests), want %v", tc.q, got, n, tc.want)
		}
	}
	// Only what happened since an earlier scrape counts.
	before := latencyHistogram{0.1: 190, 0.5: 190, 1: 190, math.Inf(1): 190}
	if got, n := h.since(before).quantile(0.5); n != 10 || got <= 0.1 || got > 0.5 {
		t.Errorf("since: q0.5 = %v over %v requests", got, n)
	}
	if got, n := (latencyHistogram{}).quantile(0.99); got != 0 || n != 0 {
		t.Errorf("empty: %v %v", got, n)
	}
	if n := h.since(before).count(); n != 10 {
		t.Errorf("count since: %v, want 10", n)
	}
	if n := (latencyHistogram{}).count(); n != 0 {
		t.Errorf("count of none: %v", n)
	}
}
