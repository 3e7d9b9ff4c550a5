package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
)

var ctx = context.Background()

func TestCRUDConfigMap(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	cms := c.CoreV1().ConfigMaps(ns)
	cm := get(cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{}))(t)
	if cm.UID == "" || cm.ResourceVersion == "" || cm.CreationTimestamp.IsZero() {
		t.Fatalf("server did not fill metadata: %+v", cm.ObjectMeta)
	}
	cm.Data["k"] = "v2"
	cm = get(cms.Update(ctx, cm, metav1.UpdateOptions{}))(t)
	got := get(cms.Get(ctx, "a", metav1.GetOptions{}))(t)
	if got.Data["k"] != "v2" {
		t.Fatalf("update lost: %v", got.Data)
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("duplicate create: want AlreadyExists, got %v", err)
	}
	if err := cms.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Get(ctx, "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after delete: want NotFound, got %v", err)
	}
}

func TestSelectors(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	for i, node := range []string{"n1", "n2", "n1"} {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i), Labels: map[string]string{"idx": fmt.Sprint(i), "app": "x"}},
			Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
		}
		get(c.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}))(t)
	}
	list := get(c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=n1"}))(t)
	if len(list.Items) != 2 {
		t.Fatalf("spec.nodeName=n1: got %d pods", len(list.Items))
	}
	list = get(c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{FieldSelector: "status.phase=Pending", LabelSelector: "idx in (0,1)"}))(t)
	if len(list.Items) != 2 {
		t.Fatalf("phase+label selector: got %d pods", len(list.Items))
	}
	list = get(c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=p2"}))(t)
	if len(list.Items) != 1 || list.Items[0].Name != "p2" {
		t.Fatalf("metadata.name=p2: got %v", list.Items)
	}
	_, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{FieldSelector: "spec.bogus=1"})
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `field label not supported: spec.bogus`) {
		t.Fatalf("unsupported field label: got %v", err)
	}
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e1"}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p1", Namespace: ns}, Reason: "Tested"}
	get(c.CoreV1().Events(ns).Create(ctx, ev, metav1.CreateOptions{}))(t)
	evs := get(c.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=p1,involvedObject.kind=Pod"}))(t)
	if len(evs.Items) != 1 {
		t.Fatalf("events by involvedObject: got %d", len(evs.Items))
	}
}

func TestPagination(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	// root-ca-cert-publisher adds kube-root-ca.crt to every namespace:
	// wait for it so that the pages are known.
	eventually(t, "kube-root-ca.crt", func() bool {
		_, err := c.CoreV1().ConfigMaps(ns).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
		return err == nil
	})
	for i := 0; i < 5; i++ {
		get(c.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm%d", i)}}, metav1.CreateOptions{}))(t)
	}
	var names []string
	opts := metav1.ListOptions{Limit: 2}
	pages := 0
	for {
		l := get(c.CoreV1().ConfigMaps(ns).List(ctx, opts))(t)
		pages++
		for _, cm := range l.Items {
			names = append(names, cm.Name)
		}
		if l.Continue == "" {
			break
		}
		if l.RemainingItemCount == nil {
			t.Fatalf("page %d: no remainingItemCount", pages)
		}
		opts.Continue = l.Continue
	}
	if pages != 3 || strings.Join(names, ",") != "cm0,cm1,cm2,cm3,cm4,kube-root-ca.crt" {
		t.Fatalf("pages=%d names=%v", pages, names)
	}
}

func TestWatchFromResourceVersion(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	cm := get(c.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "w"}}, metav1.CreateOptions{}))(t)
	cm.Data = map[string]string{"a": "1"}
	get(c.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}))(t)
	// Watching from the creation's resourceVersion replays the update (only
	// "w": root-ca-cert-publisher adds kube-root-ca.crt at some point).
	w := get(c.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: cm.ResourceVersion,
		FieldSelector: "metadata.name=w"}))(t)
	defer w.Stop()
	noErr(t, c.CoreV1().ConfigMaps(ns).Delete(ctx, "w", metav1.DeleteOptions{}))
	var got []watch.EventType
	timeout := time.After(10 * time.Second)
	for len(got) < 2 {
		select {
		case ev := <-w.ResultChan():
			got = append(got, ev.Type)
		case <-timeout:
			t.Fatalf("events so far: %v", got)
		}
	}
	if got[0] != watch.Modified || got[1] != watch.Deleted {
		t.Fatalf("events: %v, want [MODIFIED DELETED]", got)
	}
}

func TestConflictPreconditionsAndDryRun(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	cms := c.CoreV1().ConfigMaps(ns)
	cm := get(cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{}))(t)
	stale := cm.DeepCopy()
	cm.Data = map[string]string{"a": "1"}
	get(cms.Update(ctx, cm, metav1.UpdateOptions{}))(t)
	stale.Data = map[string]string{"a": "2"}
	_, err := cms.Update(ctx, stale, metav1.UpdateOptions{})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "the object has been modified") {
		t.Fatalf("stale update: want 409 Conflict, got %v", err)
	}
	wrong := types.UID("not-the-uid")
	err = cms.Delete(ctx, "c", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &wrong}})
	if !apierrors.IsConflict(err) {
		t.Fatalf("delete with wrong UID precondition: want Conflict, got %v", err)
	}
	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dry"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Get(ctx, "dry", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("dry-run create persisted: %v", err)
	}
	if err := cms.Delete(ctx, "c", metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatal(err)
	}
	get(cms.Get(ctx, "c", metav1.GetOptions{}))(t)
}

func TestFinalizersBlockDeletion(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	cms := c.CoreV1().ConfigMaps(ns)
	get(cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "f", Finalizers: []string{"example.com/hold"}}}, metav1.CreateOptions{}))(t)
	noErr(t, cms.Delete(ctx, "f", metav1.DeleteOptions{}))
	cm := get(cms.Get(ctx, "f", metav1.GetOptions{}))(t)
	if cm.DeletionTimestamp == nil {
		t.Fatal("no deletionTimestamp while a finalizer holds the object")
	}
	cm.Finalizers = nil
	get(cms.Update(ctx, cm, metav1.UpdateOptions{}))(t)
	if _, err := cms.Get(ctx, "f", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("object still there after its last finalizer was removed: %v", err)
	}
}

func TestValidationErrorsNameFieldPaths(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "bad"}, Spec: corev1.ServiceSpec{
		Ports: []corev1.ServicePort{{Port: 0}, {Name: "b", Port: 70000, TargetPort: intstr.FromInt32(80)}}}}
	_, err := c.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("want 422 Invalid, got %v", err)
	}
	for _, want := range []string{
		"spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
		"spec.ports[0].name: Required value",
		"spec.ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	_, err = c.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "Bad_Name"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	// RelaxedServiceNameValidation (beta, on in 1.36): an RFC 1123 label.
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'") {
		t.Fatalf("bad name: %v", err)
	}
}
