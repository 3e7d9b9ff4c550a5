package bench

import (
	"bytes"
	"context"
	"math"
	"sort"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
)

// mutatingVerbs are the verbs of upstream's mutating-API-call latency SLO
// (single-object POST, PUT, PATCH and DELETE).
var mutatingVerbs = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "DELETE": true}

// latencyHistogram is a cumulative histogram: bucket upper bound (s) →
// requests at most that long (+Inf included).
type latencyHistogram map[float64]float64

// scrapeMutatingLatency reads the server's apiserver_request_duration_seconds
// and sums the buckets of the mutating verbs over every resource.
func scrapeMutatingLatency(ctx context.Context, client kubernetes.Interface) (latencyHistogram, error) {
	raw, err := scrapeMetrics(ctx, client)
	if err != nil {
		return nil, err
	}
	return parseMutatingLatency(raw)
}

// scrapeMetrics is the server's /metrics text.
func scrapeMetrics(ctx context.Context, client kubernetes.Interface) ([]byte, error) {
	return client.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
}

// metricFamily is the family name of the metrics text raw (nil if absent).
func metricFamily(raw []byte, name string) (*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	return families[name], nil
}

func parseMutatingLatency(raw []byte) (latencyHistogram, error) {
	fam, err := metricFamily(raw, "apiserver_request_duration_seconds")
	if err != nil {
		return nil, err
	}
	h := latencyHistogram{}
	if fam == nil {
		return h, nil
	}
	for _, m := range fam.GetMetric() {
		verb := ""
		for _, l := range m.GetLabel() {
			if l.GetName() == "verb" {
				verb = l.GetValue()
			}
		}
		if !mutatingVerbs[verb] || m.GetHistogram() == nil {
			continue
		}
		inf := false
		for _, b := range m.GetHistogram().GetBucket() {
			h[b.GetUpperBound()] += float64(b.GetCumulativeCount())
			inf = inf || math.IsInf(b.GetUpperBound(), 1)
		}
		if !inf {
			h[math.Inf(1)] += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return h, nil
}

// since is h less the counts of an earlier scrape.
func (h latencyHistogram) since(before latencyHistogram) latencyHistogram {
	out := latencyHistogram{}
	for le, n := range h {
		out[le] = n - before[le]
	}
	return out
}

// count is the number of requests h holds (its +Inf bucket).
func (h latencyHistogram) count() float64 { return h[math.Inf(1)] }

// quantile estimates the q-quantile as Prometheus' histogram_quantile
// does (linear within the bucket; the highest finite bound when it falls
// in +Inf) and returns it with the number of requests.
func (h latencyHistogram) quantile(q float64) (seconds, count float64) {
	bounds := make([]float64, 0, len(h))
	for le := range h {
		bounds = append(bounds, le)
	}
	sort.Float64s(bounds)
	if len(bounds) == 0 {
		return 0, 0
	}
	total := h[bounds[len(bounds)-1]]
	if total <= 0 {
		return 0, 0
	}
	rank := q * total
	prevBound, prevCount := 0.0, 0.0
	for _, le := range bounds {
		n := h[le]
		if n >= rank {
			if math.IsInf(le, 1) {
				return prevBound, total
			}
			if n == prevCount {
				return le, total
			}
			return prevBound + (le-prevBound)*(rank-prevCount)/(n-prevCount), total
		}
		prevBound, prevCount = le, n
	}
	return prevBound, total
}
