package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// metadataOnly is the answer of a kind upstream registers no field label
// conversion for: runtime.DefaultMetaV1FieldSelectorConversion.
const metadataOnly = `"spec.bogus" is not a known field selector: only "metadata.name", "metadata.namespace"`

// fieldLabelCases are the field selector labels kube-apiserver 1.36 accepts
// per served resource, copied from the upstream function named in each
// case, and one it refuses with the exact error text.
var fieldLabelCases = []struct {
	gvr        schema.GroupVersionResource
	namespaced bool
	accepted   []string
	refused    string
	err        string
}{
	// pkg/apis/core/v1/conversion.go addConversionFuncs, Pod (spec.host is
	// mapped to spec.nodeName).
	{gvr("", "v1", "pods"), true, []string{"metadata.name", "metadata.namespace", "spec.nodeName",
		"spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork",
		"status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName", "spec.host"},
		"spec.bogus", "field label not supported: spec.bogus"},
	// addConversionFuncs, Node: no metadata.namespace.
	{gvr("", "v1", "nodes"), false, []string{"metadata.name", "spec.unschedulable"},
		"metadata.namespace", "field label not supported: metadata.namespace"},
	// addConversionFuncs, ReplicationController.
	{gvr("", "v1", "replicationcontrollers"), true, []string{"metadata.name", "metadata.namespace", "status.replicas"},
		"spec.replicas", "field label not supported: spec.replicas"},
	// AddFieldLabelConversionsForEvent (core/v1).
	{gvr("", "v1", "events"), true, []string{"involvedObject.kind", "involvedObject.namespace",
		"involvedObject.name", "involvedObject.uid", "involvedObject.apiVersion",
		"involvedObject.resourceVersion", "involvedObject.fieldPath", "reason", "reportingComponent",
		"source", "type", "metadata.namespace", "metadata.name"},
		"regarding.name", "field label not supported: regarding.name"},
	// AddFieldLabelConversionsForNamespace: no metadata.namespace.
	{gvr("", "v1", "namespaces"), false, []string{"status.phase", "metadata.name"},
		"metadata.namespace", "field label not supported: metadata.namespace"},
	// AddFieldLabelConversionsForSecret.
	{gvr("", "v1", "secrets"), true, []string{"type", "metadata.namespace", "metadata.name"},
		"data", "field label not supported: data"},
	// AddFieldLabelConversionsForService.
	{gvr("", "v1", "services"), true, []string{"metadata.namespace", "metadata.name", "spec.clusterIP", "spec.type"},
		"spec.ports", "field label not supported: spec.ports"},
	// pkg/apis/events/v1/conversion.go AddFieldLabelConversionsForEvent:
	// its own labels, not core's.
	{gvr("events.k8s.io", "v1", "events"), true, []string{"reason", "regarding.kind", "regarding.namespace",
		"regarding.name", "regarding.uid", "regarding.apiVersion", "regarding.resourceVersion",
		"regarding.fieldPath", "reportingController", "type", "metadata.namespace", "metadata.name"},
		"involvedObject.name", "field label not supported: involvedObject.name"},
	// No conversion function upstream (the scheme's default; apps/v1
	// registers none, so ReplicaSets' status.replicas attribute cannot be
	// selected through apps/v1 either).
	{gvr("", "v1", "configmaps"), true, []string{"metadata.name", "metadata.namespace"}, "spec.bogus", metadataOnly},
	{gvr("", "v1", "endpoints"), true, []string{"metadata.name", "metadata.namespace"}, "spec.bogus", metadataOnly},
	{gvr("", "v1", "serviceaccounts"), true, []string{"metadata.name", "metadata.namespace"}, "spec.bogus", metadataOnly},
	{gvr("apps", "v1", "deployments"), true, []string{"metadata.name", "metadata.namespace"}, "spec.bogus", metadataOnly},
	{gvr("apps", "v1", "replicasets"), true, []string{"metadata.name", "metadata.namespace"}, "spec.bogus", metadataOnly},
	{gvr("discovery.k8s.io", "v1", "endpointslices"), true, []string{"metadata.name", "metadata.namespace"}, "spec.bogus", metadataOnly},
	{gvr("coordination.k8s.io", "v1", "leases"), true, []string{"metadata.name", "metadata.namespace"}, "spec.bogus", metadataOnly},
	{gvr("networking.k8s.io", "v1", "ipaddresses"), false, []string{"metadata.name", "metadata.namespace"}, "spec.bogus", metadataOnly},
	{gvr("networking.k8s.io", "v1", "servicecidrs"), false, []string{"metadata.name", "metadata.namespace"}, "spec.bogus", metadataOnly},
}

func gvr(group, version, resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: group, Version: version, Resource: resource}
}

// TestFieldSelectorLabels lists every served resource with each accepted
// field label (list and watch) and with one refused label (400 with
// upstream's text).
func TestFieldSelectorLabels(t *testing.T) {
	skipShort(t)
	dyn := get(dynamic.NewForConfig(server.Config))(t)
	ns := newNamespace(t, server.Client)
	for _, tc := range fieldLabelCases {
		t.Run(tc.gvr.Group+"/"+tc.gvr.Resource, func(t *testing.T) {
			var r dynamic.ResourceInterface = dyn.Resource(tc.gvr)
			if tc.namespaced {
				r = dyn.Resource(tc.gvr).Namespace(ns)
			}
			for _, l := range tc.accepted {
				opts := metav1.ListOptions{FieldSelector: l + "=x"}
				if _, err := r.List(ctx, opts); err != nil {
					t.Errorf("list %s: %v", opts.FieldSelector, err)
				}
				opts.FieldSelector = l + "!=x"
				timeout := int64(1)
				opts.TimeoutSeconds = &timeout
				w, err := r.Watch(ctx, opts)
				if err != nil {
					t.Errorf("watch %s: %v", opts.FieldSelector, err)
					continue
				}
				w.Stop()
			}
			_, err := r.List(ctx, metav1.ListOptions{FieldSelector: tc.refused + "=x"})
			if !apierrors.IsBadRequest(err) || err.Error() != tc.err {
				t.Errorf("list %s=x: got %v, want 400 %q", tc.refused, err, tc.err)
			}
		})
	}
}

// TestFieldSelectorMatches checks that the labels select what upstream's
// attributes give: Services by clusterIP and type (kube-proxy lists
// spec.clusterIP!=None), events.k8s.io events by their own names, pods by
// the legacy spec.host.
func TestFieldSelectorMatches(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	port := []corev1.ServicePort{{Port: 80}}
	get(c.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec: corev1.ServiceSpec{Ports: port}}, metav1.CreateOptions{}))(t)
	get(c.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "headless"},
		Spec: corev1.ServiceSpec{Ports: port, ClusterIP: corev1.ClusterIPNone}}, metav1.CreateOptions{}))(t)
	get(c.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "nodeport"},
		Spec: corev1.ServiceSpec{Ports: port, Type: corev1.ServiceTypeNodePort}}, metav1.CreateOptions{}))(t)
	get(c.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{NodeName: "somewhere", Containers: []corev1.Container{{Name: "c", Image: "x"}}}}, metav1.CreateOptions{}))(t)
	get(c.EventsV1().Events(ns).Create(ctx, &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e"},
		EventTime: metav1.NewMicroTime(time.Now()), ReportingController: "svcplane.io/test", ReportingInstance: "i",
		Action: "Test", Reason: "Testing", Type: corev1.EventTypeNormal,
		Regarding: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "p"}}, metav1.CreateOptions{}))(t)
	names := func(list func(metav1.ListOptions) ([]string, error), selector string) string {
		out, err := list(metav1.ListOptions{FieldSelector: selector})
		if err != nil {
			t.Fatalf("%s: %v", selector, err)
		}
		return fmt.Sprint(out)
	}
	services := func(o metav1.ListOptions) ([]string, error) {
		l, err := c.CoreV1().Services(ns).List(ctx, o)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, s := range l.Items {
			out = append(out, s.Name)
		}
		return out, nil
	}
	pods := func(o metav1.ListOptions) ([]string, error) {
		l, err := c.CoreV1().Pods(ns).List(ctx, o)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, p := range l.Items {
			out = append(out, p.Name)
		}
		return out, nil
	}
	events := func(o metav1.ListOptions) ([]string, error) {
		l, err := c.EventsV1().Events(ns).List(ctx, o)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, e := range l.Items {
			out = append(out, e.Name)
		}
		return out, nil
	}
	for _, tc := range []struct {
		list     func(metav1.ListOptions) ([]string, error)
		selector string
		want     string
	}{
		{services, "spec.clusterIP!=None", "[cluster nodeport]"},
		{services, "spec.clusterIP=None", "[headless]"},
		{services, "spec.type=NodePort", "[nodeport]"},
		{services, "spec.type=ClusterIP,spec.clusterIP!=None", "[cluster]"},
		{pods, "spec.host=somewhere", "[p]"},
		{pods, "spec.host=elsewhere", "[]"},
		{pods, "spec.hostNetwork=false,spec.restartPolicy=Always", "[p]"},
		{events, "reportingController=svcplane.io/test", "[e]"},
		{events, "regarding.name=p,regarding.kind=Pod,reason=Testing,type=Normal", "[e]"},
		{events, "regarding.name=q", "[]"},
	} {
		if got := names(tc.list, tc.selector); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.selector, got, tc.want)
		}
	}
}

// TestPodNodeNameWatch: the watch cache indexes pods by spec.nodeName (as
// upstream's pod storage does), so a watch or list of one node's pods
// reads the index; it must still see a pod bound to the node later (the
// trigger's old value is empty, the new one the node), and no other node's.
func TestPodNodeNameWatch(t *testing.T) {
	c := server.Client
	ns := newNamespace(t, c)
	spec := func(node string) corev1.PodSpec {
		return corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "x"}}}
	}
	get(c.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: spec("")}, metav1.CreateOptions{}))(t)
	list := get(c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{}))(t)
	w := get(c.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=n1", ResourceVersion: list.ResourceVersion}))(t)
	defer w.Stop()
	noErr(t, c.CoreV1().Pods(ns).Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "a"},
		Target: corev1.ObjectReference{Kind: "Node", Name: "n1"}}, metav1.CreateOptions{}))
	get(c.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: spec("n2")}, metav1.CreateOptions{}))(t)
	get(c.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Spec: spec("n1")}, metav1.CreateOptions{}))(t)
	// Events until c's ADDED: a's first is ADDED (it entered the
	// selection when bound); b, on n2, never comes. (Something else may
	// update a meanwhile.)
	var got []string
	for len(got) == 0 || got[len(got)-1] != "ADDED c" {
		select {
		case e := <-w.ResultChan():
			p, ok := e.Object.(*corev1.Pod)
			if !ok {
				t.Fatalf("event %s: %T", e.Type, e.Object)
			}
			got = append(got, fmt.Sprintf("%s %s", e.Type, p.Name))
		case <-time.After(30 * time.Second):
			t.Fatalf("events so far %v, want ADDED a, then ADDED c", got)
		}
	}
	if got[0] != "ADDED a" {
		t.Errorf("watch spec.nodeName=n1: %v, want ADDED a first", got)
	}
	for _, e := range got {
		if strings.HasSuffix(e, " b") {
			t.Errorf("watch spec.nodeName=n1 got n2's pod: %v", got)
		}
	}
	// From the watch cache (resourceVersion 0), through the index.
	cached := get(c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=n1", ResourceVersion: "0"}))(t)
	var names []string
	for _, p := range cached.Items {
		names = append(names, p.Name)
	}
	if fmt.Sprint(names) != "[a c]" {
		t.Errorf("list spec.nodeName=n1 from the cache: %v, want [a c]", names)
	}
}
