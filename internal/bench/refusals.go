package bench

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/client-go/kubernetes"
)

// refusals counts the requests the server refused with 429 (its in-flight
// limits: apiserver_request_terminations_total{code="429"}) by
// "VERB resource[/subresource]".
type refusals map[string]float64

func scrapeRefusals(ctx context.Context, client kubernetes.Interface) (refusals, error) {
	raw, err := scrapeMetrics(ctx, client)
	if err != nil {
		return nil, err
	}
	return parseRefusals(raw)
}

func parseRefusals(raw []byte) (refusals, error) {
	fam, err := metricFamily(raw, "apiserver_request_terminations_total")
	if err != nil {
		return nil, err
	}
	out := refusals{}
	if fam == nil {
		return out, nil
	}
	for _, m := range fam.GetMetric() {
		l := map[string]string{}
		for _, lp := range m.GetLabel() {
			l[lp.GetName()] = lp.GetValue()
		}
		if l["code"] != "429" {
			continue
		}
		key := l["verb"] + " " + l["resource"]
		if l["subresource"] != "" {
			key += "/" + l["subresource"]
		}
		out[key] += m.GetCounter().GetValue()
	}
	return out, nil
}

// since is r less an earlier scrape.
func (r refusals) since(before refusals) refusals {
	out := refusals{}
	for k, n := range r {
		if d := n - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

// String is the total and the most refused kinds of request, most first.
func (r refusals) String() string {
	keys := make([]string, 0, len(r))
	total := 0.0
	for k, n := range r {
		keys = append(keys, k)
		total += n
	}
	sort.Slice(keys, func(i, j int) bool {
		if r[keys[i]] != r[keys[j]] {
			return r[keys[i]] > r[keys[j]]
		}
		return keys[i] < keys[j]
	})
	if len(keys) > 5 {
		keys = keys[:5]
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.0f", k, r[k])
	}
	if len(parts) == 0 {
		return "0"
	}
	return fmt.Sprintf("%.0f (%s)", total, strings.Join(parts, ", "))
}
