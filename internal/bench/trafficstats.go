package bench

import (
	"fmt"
	"slices"
	"time"
)

// latencySummary is what `bench traffic` prints of a set of round trips.
type latencySummary struct {
	N             int
	P50, P99, Max time.Duration
}

// summarize sorts rtts in place and takes their nearest-rank percentiles.
func summarize(rtts []time.Duration) latencySummary {
	slices.Sort(rtts)
	if len(rtts) == 0 {
		return latencySummary{}
	}
	return latencySummary{N: len(rtts), P50: nearestRank(rtts, 50), P99: nearestRank(rtts, 99), Max: rtts[len(rtts)-1]}
}

// nearestRank is the p-th percentile of sorted (0 < p ≤ 100): the
// smallest value that at least p% of the samples are at or below.
func nearestRank(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	// rank = ceil(p/100 × n), in integers to keep 99% of 100 at 99.
	rank := int((int64(p*1000)*int64(n) + 100_000 - 1) / 100_000)
	return sorted[min(max(rank, 1), n)-1]
}

func (s latencySummary) String() string {
	return fmt.Sprintf("p50 %s p99 %s max %s (%d requests)", us(s.P50), us(s.P99), us(s.Max), s.N)
}

// us prints a duration in microseconds with one decimal.
func us(d time.Duration) string { return fmt.Sprintf("%.1fµs", float64(d)/float64(time.Microsecond)) }

// gbitPerSec is the rate of n bytes in d, in Gbit/s (10⁹ bits).
func gbitPerSec(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) * 8 / d.Seconds() / 1e9
}

// flowResult is what the sink saw of one bulk connection.
type flowResult struct {
	Bytes       int64
	First, Last time.Time
	// From is the connection's source address as the server saw it.
	From string
}

// aggregate is the bytes of flows over the span from the first byte of
// any to the last byte of any (the streams of one run overlap).
func aggregate(flows []flowResult) (int64, time.Duration) {
	if len(flows) == 0 {
		return 0, 0
	}
	var total int64
	first, last := flows[0].First, flows[0].Last
	for _, f := range flows {
		total += f.Bytes
		if f.First.Before(first) {
			first = f.First
		}
		if f.Last.After(last) {
			last = f.Last
		}
	}
	return total, last.Sub(first)
}

// median of xs (the mean of the middle two for an even count); xs is
// sorted in place.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
