package agent

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// writtenPods remembers, per pod, the object the API server returned for
// this agent's last status write and the resourceVersions that write
// superseded. A pod's status changes twice in quick succession (created,
// then running and ready); the informer's copy lags behind the first write,
// and a second write based on it fails with 409 Conflict after the server
// has done nearly all of an update's work (at 10,000 pods: ~1.8 conflicts
// a pod). While the cache still shows a version this agent's own writes
// superseded, the written object is the newest the agent knows of, and the
// next sync starts from it.
type writtenPods struct {
	mu sync.Mutex
	m  map[types.UID]*written
}

type written struct {
	pod *corev1.Pod
	// superseded are the resourceVersions the writes were based on.
	superseded map[string]bool
}

func newWrittenPods() *writtenPods { return &writtenPods{m: map[types.UID]*written{}} }

// latest returns the newest copy of cached known here: the object of this
// agent's last status write when cached is a version that write (or an
// earlier one of this agent) replaced; else cached, and what was
// remembered is dropped (the cache has the write now, or a later change
// by someone else).
func (w *writtenPods) latest(cached *corev1.Pod) *corev1.Pod {
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.m[cached.UID]
	if e == nil {
		return cached
	}
	if e.superseded[cached.ResourceVersion] {
		return e.pod
	}
	delete(w.m, cached.UID)
	return cached
}

// wrote records that a status write based on resourceVersion base
// returned got. Without resourceVersions (some fakes) nothing is known.
func (w *writtenPods) wrote(base string, got *corev1.Pod) {
	if base == "" || got.ResourceVersion == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.m[got.UID]
	if e == nil {
		e = &written{superseded: map[string]bool{}}
		w.m[got.UID] = e
	}
	e.pod = got
	e.superseded[base] = true
}

// forget drops what is remembered of a pod (deleted, or a write failed).
func (w *writtenPods) forget(uid types.UID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.m, uid)
}
