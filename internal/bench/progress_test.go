package bench

import (
	"strconv"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// lineWriter hands every write to the test as one line.
type lineWriter chan string

func (w lineWriter) Write(b []byte) (int, error) {
	w <- string(b)
	return len(b), nil
}

func TestProgressReportsEveryInterval(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	lines := make(lineWriter, 4)
	p := newProgress(lines, clk, 10*time.Second)
	n := 0
	p.phase("creating Services", func() string { n += 100; return "created " + strconv.Itoa(n) })
	clk.Step(10 * time.Second)
	if got := <-lines; got != "bench: creating Services (created 100), 10s elapsed\n" {
		t.Errorf("first report %q", got)
	}
	p.phase("checking uniqueness", nil)
	clk.Step(10 * time.Second)
	if got := <-lines; !strings.HasPrefix(got, "bench: checking uniqueness, 20s elapsed") {
		t.Errorf("second report %q", got)
	}
	p.stop()
	clk.Step(10 * time.Second)
	select {
	case got := <-lines:
		t.Errorf("report after stop: %q", got)
	default:
	}
}
