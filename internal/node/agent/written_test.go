package agent

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func podAt(uid types.UID, rv string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: uid, ResourceVersion: rv}, Status: corev1.PodStatus{Phase: phase}}
}

// The informer shows versions in order (1, then 2 = this agent's first
// write, then 3 = its second); while it shows one a write of this agent
// replaced, the agent works from its newest write.
func TestWrittenPodsLatest(t *testing.T) {
	w := newWrittenPods()
	v1 := podAt("u", "1", "")
	if got := w.latest(v1); got != v1 {
		t.Fatalf("nothing written: got version %s, want the cached 1", got.ResourceVersion)
	}
	w.wrote("1", podAt("u", "2", corev1.PodPending))
	w.wrote("2", podAt("u", "3", corev1.PodRunning))
	for _, tc := range []struct {
		cached, want string
	}{
		{"1", "3"}, // the cache has seen neither write
		{"2", "3"}, // it has seen the first
		{"1", "3"}, // a lagging copy again: still superseded
		{"3", "3"}, // it caught up: the cached copy, and nothing kept
	} {
		cached := podAt("u", tc.cached, "")
		if got := w.latest(cached); got.ResourceVersion != tc.want {
			t.Errorf("cached %s: got version %s, want %s", tc.cached, got.ResourceVersion, tc.want)
		}
	}
	if len(w.m) != 0 {
		t.Errorf("after the cache caught up: %d pods remembered, want 0", len(w.m))
	}
}

// A version the agent did not supersede (someone else's change) wins, and
// so does every pod but the one written.
func TestWrittenPodsOthersChangesWin(t *testing.T) {
	w := newWrittenPods()
	w.wrote("1", podAt("u", "2", corev1.PodRunning))
	if other := podAt("v", "1", ""); w.latest(other) != other {
		t.Errorf("another pod got this pod's write")
	}
	theirs := podAt("u", "7", corev1.PodFailed)
	if got := w.latest(theirs); got != theirs {
		t.Errorf("someone else's version 7: got %s", got.ResourceVersion)
	}
	if got := w.latest(podAt("u", "1", "")); got.ResourceVersion != "1" {
		t.Errorf("after someone else's change the agent's write is forgotten: got %s", got.ResourceVersion)
	}
	w.wrote("1", podAt("u", "2", corev1.PodRunning))
	w.forget("u")
	if got := w.latest(podAt("u", "1", "")); got.ResourceVersion != "1" {
		t.Errorf("forgotten: got %s", got.ResourceVersion)
	}
}

// Without resourceVersions (a fake client that sets none) nothing is kept:
// versions cannot be told apart.
func TestWrittenPodsNeedVersions(t *testing.T) {
	w := newWrittenPods()
	w.wrote("", podAt("u", "", corev1.PodRunning))
	deleted := podAt("u", "", "")
	if got := w.latest(deleted); got != deleted {
		t.Errorf("no versions: the written copy replaced the cached one")
	}
}
