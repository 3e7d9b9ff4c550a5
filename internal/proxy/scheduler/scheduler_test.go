package scheduler

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

func backends(weights ...int) []*Backend {
	out := make([]*Backend, len(weights))
	for i, w := range weights {
		out[i] = &Backend{Key: fmt.Sprintf("10.0.0.%d:80", i+1), Weight: w}
	}
	return out
}

func client(i int) Request {
	return Request{Client: netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)}), Dest: netip.MustParseAddr("10.96.0.10")}
}

func mustNew(t *testing.T, name string) Scheduler {
	t.Helper()
	s, err := New(name, clocktesting.NewFakeClock(time.Unix(0, 0)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// counts picks n times (from n distinct clients) without holding connections.
func counts(s Scheduler, bs []*Backend, n int) map[string]int {
	got := map[string]int{}
	for i := 0; i < n; i++ {
		if b := s.Pick(client(i), bs, nil); b != nil {
			got[b.Key]++
		}
	}
	return got
}

func TestRoundRobinSpreadsEvenlyAndSkipsWeightZero(t *testing.T) {
	bs := backends(1, 1, 0, 1)
	got := counts(mustNew(t, "rr"), bs, 300)
	if got["10.0.0.1:80"] != 100 || got["10.0.0.2:80"] != 100 || got["10.0.0.4:80"] != 100 || got["10.0.0.3:80"] != 0 {
		t.Errorf("rr: %v", got)
	}
}

func TestWeightedRoundRobinFollowsWeights(t *testing.T) {
	bs := backends(4, 3, 2)
	got := counts(mustNew(t, "wrr"), bs, 900)
	if got["10.0.0.1:80"] != 400 || got["10.0.0.2:80"] != 300 || got["10.0.0.3:80"] != 200 {
		t.Errorf("wrr: %v", got)
	}
}

// The least-connection family, with connections held open.
func TestLeastConnectionSchedulers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		weights []int
		active  []int64
		want    string
	}{
		{"lc", []int{1, 1, 1}, []int64{3, 1, 2}, "10.0.0.2:80"},
		{"wlc", []int{1, 4, 1}, []int64{1, 3, 2}, "10.0.0.2:80"},  // 3/4 < 1/1
		{"sed", []int{1, 4, 1}, []int64{0, 3, 2}, "10.0.0.1:80"},  // 1/1 ≤ 4/4
		{"nq", []int{1, 4, 1}, []int64{1, 3, 0}, "10.0.0.3:80"},   // idle first
		{"nq", []int{1, 4, 1}, []int64{1, 2, 2}, "10.0.0.2:80"},   // else sed: 3/4
		{"lblc", []int{1, 1, 1}, []int64{2, 0, 1}, "10.0.0.2:80"}, // new destination: wlc
	} {
		bs := backends(tc.weights...)
		for i, a := range tc.active {
			bs[i].Active.Store(a)
		}
		if got := mustNew(t, tc.name).Pick(client(0), bs, nil); got == nil || got.Key != tc.want {
			t.Errorf("%s %v: got %v, want %s", tc.name, tc.active, got, tc.want)
		}
	}
}

// Held connections: wlc keeps active counts proportional to weights.
func TestWeightedLeastConnectionBalancesHeldConnections(t *testing.T) {
	bs := backends(1, 2, 3)
	s := mustNew(t, "wlc")
	for i := 0; i < 600; i++ {
		s.Pick(client(i), bs, nil).Active.Add(1)
	}
	if bs[0].Active.Load() != 100 || bs[1].Active.Load() != 200 || bs[2].Active.Load() != 300 {
		t.Errorf("wlc: %d %d %d", bs[0].Active.Load(), bs[1].Active.Load(), bs[2].Active.Load())
	}
}

func TestHashingIsStable(t *testing.T) {
	for _, name := range []string{"sh", "mh"} {
		s := mustNew(t, name)
		bs := backends(1, 1, 1, 1)
		first := map[int]string{}
		for i := 0; i < 500; i++ {
			first[i] = s.Pick(client(i), bs, nil).Key
		}
		got := counts(s, bs, 500)
		for k, n := range got {
			if n < 60 {
				t.Errorf("%s: backend %s got only %d of 500 clients", name, k, n)
			}
		}
		for i := 0; i < 500; i++ {
			if s.Pick(client(i), bs, nil).Key != first[i] {
				t.Fatalf("%s: client %d moved without a change", name, i)
			}
		}
		// A skipped backend's clients go elsewhere; the others stay.
		skip := func(b *Backend) bool { return b == bs[0] }
		for i := 0; i < 500; i++ {
			b := s.Pick(client(i), bs, skip)
			if b == bs[0] || (first[i] != bs[0].Key && b.Key != first[i]) {
				t.Fatalf("%s: client %d: %s → %s", name, i, first[i], b.Key)
			}
		}
	}
}

// Maglev: removing one of 5 backends moves few clients that were not on it.
func TestMaglevMovesFewClientsOnRemoval(t *testing.T) {
	s := mustNew(t, "mh")
	bs := backends(1, 1, 1, 1, 1)
	before := map[int]string{}
	for i := 0; i < 1000; i++ {
		before[i] = s.Pick(client(i), bs, nil).Key
	}
	fewer := append([]*Backend{}, bs[:2]...)
	fewer = append(fewer, bs[3:]...)
	moved := 0
	for i := 0; i < 1000; i++ {
		if b := s.Pick(client(i), fewer, nil); before[i] != bs[2].Key && b.Key != before[i] {
			moved++
		}
	}
	if moved > 150 {
		t.Errorf("mh: %d of ~800 clients moved", moved)
	}
}

func TestDestinationHashingUsesTheDestination(t *testing.T) {
	s := mustNew(t, "dh")
	bs := backends(1, 1, 1)
	first := s.Pick(client(0), bs, nil)
	for i := 1; i < 100; i++ {
		if s.Pick(client(i), bs, nil) != first {
			t.Fatal("dh: one destination should map to one backend")
		}
	}
}

func TestLBLCRGrowsWhenOverloadedAndShrinksAfterExpiry(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	s, _ := New("lblcr", clk)
	bs := backends(1, 1)
	a := s.Pick(client(0), bs, nil)
	a.Active.Store(5) // overloaded while the other is idle
	b := s.Pick(client(1), bs, nil)
	if b == a {
		t.Fatal("lblcr should add a replica when overloaded")
	}
	set := s.(*lblcr).sets[client(0).Dest]
	if len(set.keys) != 2 {
		t.Fatalf("set: %v", set.keys)
	}
	clk.Step(lblcrExpire + time.Second)
	s.Pick(client(2), bs, nil)
	if len(set.keys) != 1 || set.keys[0] != b.Key {
		t.Errorf("after expiry the most loaded member goes: %v", set.keys)
	}
}

func TestUnknownSchedulerAndNoBackends(t *testing.T) {
	if _, err := New("bogus", nil); err == nil {
		t.Error("want an error")
	}
	for _, name := range Names {
		if b := mustNew(t, name).Pick(client(0), backends(0, 0), nil); b != nil {
			t.Errorf("%s picked a weight-0 backend", name)
		}
	}
}
