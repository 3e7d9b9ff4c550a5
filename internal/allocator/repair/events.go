package repair

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
)

// Recorder reports a Warning event about obj.
type Recorder interface {
	Warn(obj runtime.Object, reason, message string)
}

// NewRecorder returns a Recorder writing core/v1 events as component.
func NewRecorder(client kubernetes.Interface, component string) (Recorder, func()) {
	b := record.NewBroadcaster()
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	r := b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: component})
	return eventRecorder{r}, b.Shutdown
}

type eventRecorder struct{ r record.EventRecorder }

func (e eventRecorder) Warn(obj runtime.Object, reason, message string) {
	e.r.Event(obj, corev1.EventTypeWarning, reason, message)
}

// leaks counts consecutive passes that found a value unused.
type leaks[K comparable] map[K]int

// Threshold is the pass on which a leaked value is freed.
const Threshold = 3

// due reports whether this pass, finding k leaked again, is the one that
// frees it.
func (l leaks[K]) due(k K) bool { return l[k]+1 >= Threshold }

// record applies a pass: values found leaked (and not freed) count one
// more; all others, freed ones included, are forgotten.
func (l leaks[K]) record(seen map[K]bool) {
	for k := range l {
		if !seen[k] {
			delete(l, k)
		}
	}
	for k := range seen {
		l[k]++
	}
}
