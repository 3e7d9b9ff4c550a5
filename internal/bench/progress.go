package bench

import (
	"fmt"
	"io"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// progressInterval is how often a long bench reports where it is.
const progressInterval = 10 * time.Second

// progress prints "bench: <phase> (<counts>), <elapsed> elapsed" every
// interval until stopped, so a long bench shows it is alive and how far
// it got. Phases are named by the bench; counts, when set, is called at
// each tick.
type progress struct {
	w     io.Writer
	clk   clock.Clock
	start time.Time

	mu     sync.Mutex
	name   string
	counts func() string

	done chan struct{}
	wg   sync.WaitGroup
}

// startProgress reports to w on the real clock.
func startProgress(w io.Writer) *progress {
	return newProgress(w, clock.RealClock{}, progressInterval)
}

func newProgress(w io.Writer, clk clock.WithTicker, interval time.Duration) *progress {
	p := &progress{w: w, clk: clk, start: clk.Now(), done: make(chan struct{})}
	t := clk.NewTicker(interval)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer t.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-t.C():
				p.report()
			}
		}
	}()
	return p
}

// phase names what the bench does now; counts (nil: none) tells how far.
func (p *progress) phase(name string, counts func() string) {
	p.mu.Lock()
	p.name, p.counts = name, counts
	p.mu.Unlock()
}

func (p *progress) report() {
	p.mu.Lock()
	name, counts := p.name, p.counts
	p.mu.Unlock()
	if name == "" {
		name = "starting"
	}
	if counts != nil {
		name += " (" + counts() + ")"
	}
	fmt.Fprintf(p.w, "bench: %s, %s elapsed\n", name, p.clk.Since(p.start).Truncate(time.Second))
}

// stop ends the reports; none is printed after it returns.
func (p *progress) stop() {
	close(p.done)
	p.wg.Wait()
}
