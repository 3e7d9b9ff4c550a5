package netns

import (
	"bytes"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// maxLogBytes bounds one container run's kept output; older lines go.
const maxLogBytes = 256 << 10

// logLine is one line of a container's output and when it was written.
type logLine struct {
	at   time.Time
	data []byte // with its newline, if it had one
}

// logBuf is one run of a container's output (stdout and stderr merged,
// as `kubectl logs` shows them), line by line with times.
type logBuf struct {
	clock   clock.PassiveClock
	mu      sync.Mutex
	lines   []logLine
	size    int
	partial []byte
	closed  bool
	// wake is closed and replaced at every write (followers wait on it).
	wake chan struct{}
}

func newLogBuf(clk clock.PassiveClock) *logBuf { return &logBuf{clock: clk, wake: make(chan struct{})} }

func (b *logBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now()
	data := append(b.partial, p...)
	b.partial = nil
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			b.partial = append([]byte(nil), data...)
			break
		}
		b.lines = append(b.lines, logLine{at: now, data: append([]byte(nil), data[:i+1]...)})
		b.size += i + 1
		data = data[i+1:]
	}
	for b.size > maxLogBytes && len(b.lines) > 1 {
		b.size -= len(b.lines[0].data)
		b.lines = b.lines[1:]
	}
	close(b.wake)
	b.wake = make(chan struct{})
	return len(p), nil
}

// snapshot returns the complete lines so far (and, once the run ended, a
// partial last line), the
// channel closed at the next write, and whether the run ended.
func (b *logBuf) snapshot() ([]logLine, <-chan struct{}, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := append([]logLine(nil), b.lines...)
	if b.closed && len(b.partial) > 0 {
		out = append(out, logLine{at: b.clock.Now(), data: append([]byte(nil), b.partial...)})
	}
	return out, b.wake, b.closed
}

// close marks the run ended (followers stop).
func (b *logBuf) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		close(b.wake)
		b.wake = make(chan struct{})
	}
}
