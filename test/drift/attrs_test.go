package drift

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	eventstore "k8s.io/kubernetes/pkg/registry/core/event"
	nsstore "k8s.io/kubernetes/pkg/registry/core/namespace"
	nodestore "k8s.io/kubernetes/pkg/registry/core/node"
	podstore "k8s.io/kubernetes/pkg/registry/core/pod"
	rcstore "k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	secretstore "k8s.io/kubernetes/pkg/registry/core/secret"
	svcstore "k8s.io/kubernetes/pkg/registry/core/service"

	"github.com/svcplane/svcplane/internal/registry"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// TestSelectableFieldsMatchUpstream compares the field-selector attributes
// (the values selectors match against) of filled-in objects: upstream's
// GetAttrs on the internal object, ours on the served one.
func TestSelectableFieldsMatchUpstream(t *testing.T) {
	byKind := map[string]*resource.Definition{}
	for _, d := range registry.Definitions() {
		byKind[d.GroupVersionKind().String()] = d
	}
	three, ten := int32(3), int64(10)
	meta := metav1.ObjectMeta{Name: "n", Namespace: "ns", Labels: map[string]string{"a": "b"}}
	ref := corev1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p", UID: "u", APIVersion: "v1", ResourceVersion: "5", FieldPath: "spec.containers{c}"}
	cases := []struct {
		obj      runtime.Object
		internal runtime.Object
		getAttrs func(runtime.Object) (labels.Set, fields.Set, error)
	}{
		{&corev1.Pod{ObjectMeta: meta, Spec: corev1.PodSpec{NodeName: "n1", RestartPolicy: corev1.RestartPolicyOnFailure,
			SchedulerName: "s", ServiceAccountName: "sa", HostNetwork: true, ActiveDeadlineSeconds: &ten},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1", PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}},
				NominatedNodeName: "n2"}}, &api.Pod{}, podstore.GetAttrs},
		{&corev1.Pod{ObjectMeta: meta}, &api.Pod{}, podstore.GetAttrs},
		{&corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{ClusterIP: "None", Type: corev1.ServiceTypeClusterIP}}, &api.Service{}, svcstore.GetAttrs},
		{&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: corev1.NodeSpec{Unschedulable: true}}, &api.Node{}, nodestore.GetAttrs},
		{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}}, &api.Namespace{}, nsstore.GetAttrs},
		{&corev1.Secret{ObjectMeta: meta, Type: corev1.SecretTypeTLS}, &api.Secret{}, secretstore.GetAttrs},
		{&corev1.ReplicationController{ObjectMeta: meta, Spec: corev1.ReplicationControllerSpec{Replicas: &three},
			Status: corev1.ReplicationControllerStatus{Replicas: 2}}, &api.ReplicationController{}, rcstore.GetAttrs},
		{&corev1.Event{ObjectMeta: meta, InvolvedObject: ref, Reason: "R", Type: "Warning", ReportingController: "rc",
			Source: corev1.EventSource{Component: "kubelet"}}, &api.Event{}, eventstore.GetAttrs},
		{&corev1.Event{ObjectMeta: meta, InvolvedObject: ref, ReportingController: "rc"}, &api.Event{}, eventstore.GetAttrs},
		{&eventsv1.Event{ObjectMeta: meta, Regarding: ref, Reason: "R", Type: "Normal", ReportingController: "ctl",
			EventTime: metav1.NewMicroTime(time.Unix(1, 0)), DeprecatedSource: corev1.EventSource{Component: "old"}}, &api.Event{}, eventstore.GetAttrs},
	}
	for _, tc := range cases {
		gvk := tc.obj.GetObjectKind().GroupVersionKind()
		kinds, _, err := legacyscheme.Scheme.ObjectKinds(tc.obj)
		if err != nil {
			t.Fatal(err)
		}
		gvk = kinds[0]
		def := byKind[gvk.String()]
		if def == nil {
			t.Fatalf("%s is not served", gvk)
		}
		if err := legacyscheme.Scheme.Convert(tc.obj, tc.internal, nil); err != nil {
			t.Fatal(err)
		}
		_, want, err := tc.getAttrs(tc.internal)
		if err != nil {
			t.Fatal(err)
		}
		_, got, err := resource.AttrFunc(def)(tc.obj)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n ours     %v\n upstream %v", gvk, got, want)
		}
	}
}
