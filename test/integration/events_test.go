package integration

import (
	"bytes"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestEventsAreOneResourceInTwoAPIs checks that events.k8s.io/v1 and core/v1
// serve the same stored events: written through one, read through the other,
// with the field mapping (note ⇄ message, regarding ⇄ involvedObject).
func TestEventsAreOneResourceInTwoAPIs(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	now := metav1.NewMicroTime(time.Now().Truncate(time.Microsecond))
	ev := &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "new-style"},
		EventTime:  now, ReportingController: "svcplane.io/test", ReportingInstance: "it-1",
		Action: "Testing", Reason: "Tested", Note: "hello", Type: corev1.EventTypeNormal,
		Regarding: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "p"},
	}
	get(c.EventsV1().Events(ns).Create(ctx, ev, metav1.CreateOptions{}))(t)
	ec := etcdClient(t, server.Options.DataDir)
	defer ec.Close()
	stored := etcdValue(t, ec, "/registry/events/"+ns+"/new-style")
	// protobuf envelope: "k8s\0", then TypeMeta{apiVersion: "v1", kind: "Event"}
	if !bytes.HasPrefix(stored, []byte("k8s\x00\n\v\n\x02v1\x12\x05Event")) {
		t.Fatalf("events.k8s.io event not stored as a core/v1 Event: %q", stored[:24])
	}
	core := get(c.CoreV1().Events(ns).Get(ctx, "new-style", metav1.GetOptions{}))(t)
	if core.Message != "hello" || core.InvolvedObject.Name != "p" || core.ReportingController != "svcplane.io/test" {
		t.Fatalf("core view of an events.k8s.io event: %+v", core)
	}

	get(c.CoreV1().Events(ns).Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "old-style"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "q"},
		Reason:         "Old", Message: "from core", Count: 3, Type: corev1.EventTypeWarning,
		Source: corev1.EventSource{Component: "kubelet"},
	}, metav1.CreateOptions{}))(t)
	v1ev := get(c.EventsV1().Events(ns).Get(ctx, "old-style", metav1.GetOptions{}))(t)
	if v1ev.Note != "from core" || v1ev.Regarding.Name != "q" || v1ev.DeprecatedCount != 3 || v1ev.DeprecatedSource.Component != "kubelet" {
		t.Fatalf("events.k8s.io view of a core event: %+v", v1ev)
	}

	list := get(c.EventsV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "regarding.name=q"}))(t)
	if len(list.Items) != 1 || list.Items[0].Name != "old-style" {
		t.Fatalf("field selector on events.k8s.io: %d items", len(list.Items))
	}
	if all := get(c.EventsV1().Events(ns).List(ctx, metav1.ListOptions{}))(t); len(all.Items) != 2 {
		t.Fatalf("events.k8s.io list: %d items, want 2", len(all.Items))
	}
}

// TestEventsV1StrictValidation checks the checks that only events.k8s.io/v1
// applies: eventTime, reporting fields and type are required.
func TestEventsV1StrictValidation(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	_, err := c.EventsV1().Events(ns).Create(ctx, &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "bad"},
		Regarding:  corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "p"},
	}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("want 422 Invalid, got %v", err)
	}
	for _, want := range []string{"eventTime: Required value", "type: Invalid value", "has invalid value"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	now := metav1.NewMicroTime(time.Now())
	created := get(c.EventsV1().Events(ns).Create(ctx, &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "good"},
		EventTime:  now, ReportingController: "svcplane.io/test", ReportingInstance: "i",
		Action: "A", Reason: "R", Type: corev1.EventTypeNormal,
		Regarding: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "p"},
	}, metav1.CreateOptions{}))(t)
	created.Note = "changed"
	if _, err := c.EventsV1().Events(ns).Update(ctx, created, metav1.UpdateOptions{}); err == nil ||
		!strings.Contains(err.Error(), "message: Invalid value") || !strings.Contains(err.Error(), "field is immutable") {
		t.Fatalf("changing the note through events.k8s.io: %v", err)
	}
}
