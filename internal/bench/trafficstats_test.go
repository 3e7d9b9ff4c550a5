package bench

import (
	"testing"
	"time"
)

func TestNearestRank(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var d []time.Duration
		for _, x := range v {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	for _, tc := range []struct {
		name string
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one sample", ms(7), 99, 7 * time.Millisecond},
		{"median of 4 is the 2nd", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p99 of 100 is the 99th", ms(hundred...), 99, 99 * time.Millisecond},
		{"p50 of 100 is the 50th", ms(hundred...), 50, 50 * time.Millisecond},
		{"p99 of 10 is the max", ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10 * time.Millisecond},
		{"p100 is the max", ms(1, 2, 3), 100, 3 * time.Millisecond},
	} {
		if got := nearestRank(tc.in, tc.p); got != tc.want {
			t.Errorf("%s: p%v = %v, want %v", tc.name, tc.p, got, tc.want)
		}
	}
}

func TestSummarizeSorts(t *testing.T) {
	in := []time.Duration{300 * time.Microsecond, 100 * time.Microsecond, 200 * time.Microsecond}
	s := summarize(in)
	if s.N != 3 || s.P50 != 200*time.Microsecond || s.P99 != 300*time.Microsecond || s.Max != 300*time.Microsecond {
		t.Errorf("summary %+v", s)
	}
	if got := s.String(); got != "p50 200.0µs p99 300.0µs max 300.0µs (3 requests)" {
		t.Errorf("String() = %q", got)
	}
}

func TestGbitPerSec(t *testing.T) {
	if got := gbitPerSec(1_250_000_000, time.Second); got != 10 {
		t.Errorf("1.25 GB in 1s = %v Gbit/s, want 10", got)
	}
	if got := gbitPerSec(100, 0); got != 0 {
		t.Errorf("zero time: %v", got)
	}
}

func TestAggregateSpansOverlappingFlows(t *testing.T) {
	t0 := time.Unix(1000, 0)
	flows := []flowResult{
		{Bytes: 100, First: t0.Add(10 * time.Millisecond), Last: t0.Add(2 * time.Second)},
		{Bytes: 300, First: t0, Last: t0.Add(1500 * time.Millisecond)},
	}
	n, d := aggregate(flows)
	if n != 400 || d != 2*time.Second {
		t.Errorf("aggregate = %d bytes over %v, want 400 over 2s", n, d)
	}
	if n, d := aggregate(nil); n != 0 || d != 0 {
		t.Errorf("empty: %d %v", n, d)
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
