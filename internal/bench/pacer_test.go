package bench

import (
	"testing"
	"time"
)

// 101 clients asking at the same instant at 100 creates/s: the first goes
// at once, the others 10 ms apart, the last a second later.
func TestPacerSpacesCreates(t *testing.T) {
	l := newPacer(100)
	now := time.Unix(1000, 0)
	var delays []time.Duration
	for i := 0; i < 101; i++ {
		delays = append(delays, l.ReserveN(now, 1).DelayFrom(now))
	}
	if delays[0] != 0 || delays[1] != 10*time.Millisecond || delays[100] != time.Second {
		t.Fatalf("delays %v, %v, %v; want 0, 10ms, 1s", delays[0], delays[1], delays[100])
	}
}

func TestPacerZeroIsUnpaced(t *testing.T) {
	l := newPacer(0)
	now := time.Unix(1000, 0)
	for i := 0; i < 1000; i++ {
		if d := l.ReserveN(now, 1).DelayFrom(now); d != 0 {
			t.Fatalf("create %d delayed %v without pacing", i, d)
		}
	}
}
