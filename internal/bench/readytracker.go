package bench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

type nodeLister interface {
	List(selector labels.Selector) ([]*corev1.Node, error)
}

func everything() labels.Selector { return labels.Everything() }

// readyTracker records when each bench pod was created and when it was
// first seen Running and Ready.
type readyTracker struct {
	mu      sync.Mutex
	t0      time.Time
	createT map[string]time.Time
	readyT  map[string]time.Time
	changed chan struct{}
}

func newReadyTracker() *readyTracker {
	return &readyTracker{createT: map[string]time.Time{}, readyT: map[string]time.Time{}, changed: make(chan struct{}, 1)}
}

func (r *readyTracker) start(t time.Time) {
	r.mu.Lock()
	r.t0 = t
	r.mu.Unlock()
}

func (r *readyTracker) created(name string, t time.Time) {
	r.mu.Lock()
	r.createT[name] = t
	r.mu.Unlock()
}

func (r *readyTracker) observe(obj interface{}) {
	p, ok := obj.(*corev1.Pod)
	if !ok || p.Status.Phase != corev1.PodRunning {
		return
	}
	ready := false
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			ready = true
		}
	}
	if !ready {
		return
	}
	r.mu.Lock()
	if _, seen := r.readyT[p.Name]; !seen {
		r.readyT[p.Name] = time.Now()
		if _, ok := r.createT[p.Name]; !ok {
			// Deployment pods: creation time from the server.
			r.createT[p.Name] = p.CreationTimestamp.Time
		}
	}
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *readyTracker) wait(ctx context.Context, n int, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		r.mu.Lock()
		got := len(r.readyT)
		r.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return fmt.Errorf("only %d of %d pods Running+Ready after %s", got, n, timeout)
		case <-r.changed:
		case <-time.After(time.Second):
		}
	}
}

// counts tells the pods created and Ready for progress lines.
func (r *readyTracker) counts() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprintf("%d pods created, %d Running+Ready", len(r.createT), len(r.readyT))
}

// latencies are the per-pod create→Ready times, sorted.
func (r *readyTracker) latencies() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []time.Duration
	for name, ready := range r.readyT {
		if c, ok := r.createT[name]; ok {
			out = append(out, ready.Sub(c))
		}
	}
	slices.Sort(out)
	return out
}
