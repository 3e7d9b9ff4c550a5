package mirroring

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/svcplane/svcplane/internal/testutil"
)

type fixture struct {
	client *fake.Clientset
	inf    informers.SharedInformerFactory
	c      *Controller
}

func newFixture(t testing.TB, objs ...runtime.Object) *fixture {
	client := fake.NewClientset(objs...)
	// The server turns generateName into a name; the fake does not.
	n := 0
	client.PrependReactor("create", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if m, ok := a.(clienttesting.CreateAction).GetObject().(metav1.Object); ok && m.GetName() == "" && m.GetGenerateName() != "" {
			n++
			m.SetName(fmt.Sprintf("%s%05d", m.GetGenerateName(), n))
		}
		return false, nil, nil
	})
	inf := informers.NewSharedInformerFactory(client, 0)
	c := New(client, inf.Core().V1().Services(), inf.Core().V1().Endpoints(), inf.Discovery().V1().EndpointSlices())
	f := &fixture{client: client, inf: inf, c: c}
	f.refresh(t)
	return f
}

// refresh loads the listers from the fake's current objects (what the
// informers would show after the controller's own writes).
func (f *fixture) refresh(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	fill := func(idx interface {
		Replace([]interface{}, string) error
	}, items []interface{}) {
		_ = idx.Replace(items, "")
	}
	var svcs, eps, slices []interface{}
	for _, s := range testutil.Get(f.client.CoreV1().Services("").List(ctx, metav1.ListOptions{}))(t).Items {
		svcs = append(svcs, s.DeepCopy())
	}
	for _, e := range testutil.Get(f.client.CoreV1().Endpoints("").List(ctx, metav1.ListOptions{}))(t).Items {
		eps = append(eps, e.DeepCopy())
	}
	for _, s := range testutil.Get(f.client.DiscoveryV1().EndpointSlices("").List(ctx, metav1.ListOptions{}))(t).Items {
		slices = append(slices, s.DeepCopy())
	}
	fill(f.inf.Core().V1().Services().Informer().GetIndexer(), svcs)
	fill(f.inf.Core().V1().Endpoints().Informer().GetIndexer(), eps)
	fill(f.inf.Discovery().V1().EndpointSlices().Informer().GetIndexer(), slices)
	f.client.ClearActions()
}

func (f *fixture) sync(t *testing.T) {
	t.Helper()
	if err := f.c.sync(context.Background(), "ns/db"); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) verbs() []string {
	var out []string
	for _, a := range f.client.Actions() {
		if a.GetVerb() != "list" && a.GetVerb() != "watch" {
			out = append(out, a.GetVerb())
		}
	}
	return out
}

func (f *fixture) slices(t *testing.T) []discoveryv1.EndpointSlice {
	t.Helper()
	return testutil.Get(f.client.DiscoveryV1().EndpointSlices("ns").List(context.Background(), metav1.ListOptions{
		LabelSelector: labels.Set{discoveryv1.LabelServiceName: "db", discoveryv1.LabelManagedBy: ControllerName}.String()}))(t).
		Items
}

func selectorless() *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "ns"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 5432}}}}
}

func endpoints(ready, notReady []string) *corev1.Endpoints {
	sub := corev1.EndpointSubset{Ports: []corev1.EndpointPort{{Port: 5432, Protocol: corev1.ProtocolTCP}}}
	for _, ip := range ready {
		sub.Addresses = append(sub.Addresses, corev1.EndpointAddress{IP: ip})
	}
	for _, ip := range notReady {
		sub.NotReadyAddresses = append(sub.NotReadyAddresses, corev1.EndpointAddress{IP: ip})
	}
	return &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "ns", UID: "ep-uid"}, Subsets: []corev1.EndpointSubset{sub}}
}

func TestMirrorsPerFamilyAndFollowsChangesInPlace(t *testing.T) {
	f := newFixture(t, selectorless(), endpoints([]string{"10.1.0.1", "fd00::1"}, []string{"10.1.0.2"}))
	f.sync(t)
	got := f.slices(t)
	if len(got) != 2 {
		t.Fatalf("want one IPv4 and one IPv6 slice, got %d", len(got))
	}
	for _, s := range got {
		if len(s.OwnerReferences) != 1 || s.OwnerReferences[0].Kind != "Endpoints" || s.OwnerReferences[0].UID != "ep-uid" {
			t.Errorf("slice %s owners %+v", s.Name, s.OwnerReferences)
		}
		if s.AddressType == discoveryv1.AddressTypeIPv4 && (len(s.Endpoints) != 2 || !*s.Endpoints[0].Conditions.Ready || *s.Endpoints[1].Conditions.Ready) {
			t.Errorf("IPv4 slice endpoints %+v, want 10.1.0.1 ready and 10.1.0.2 not", s.Endpoints)
		}
	}
	f.refresh(t)
	f.sync(t)
	if v := f.verbs(); len(v) != 0 {
		t.Fatalf("an unchanged Endpoints must write nothing, got %v", v)
	}

	// A new address updates the IPv4 slice in place, under its name.
	names := map[string]bool{got[0].Name: true, got[1].Name: true}
	testutil.Get(f.client.CoreV1().Endpoints("ns").Update(context.Background(), endpoints([]string{"10.1.0.1", "10.1.0.3", "fd00::1"}, []string{"10.1.0.2"}), metav1.UpdateOptions{}))(t)
	f.refresh(t)
	f.sync(t)
	if v := f.verbs(); len(v) != 1 || v[0] != "update" {
		t.Fatalf("writes %v, want one update", v)
	}
	for _, s := range f.slices(t) {
		if !names[s.Name] {
			t.Errorf("slice %s is new; the old ones must be kept", s.Name)
		}
	}
}

func TestSelectorServicesAndSkipMirrorAreNotMirrored(t *testing.T) {
	svc := selectorless()
	svc.Spec.Selector = map[string]string{"app": "db"}
	f := newFixture(t, svc, endpoints([]string{"10.1.0.1"}, nil))
	f.sync(t)
	if n := len(f.slices(t)); n != 0 {
		t.Fatalf("a selector Service's Endpoints are the endpoints controller's: %d mirrored", n)
	}
	ep := endpoints([]string{"10.1.0.1"}, nil)
	ep.Labels = map[string]string{discoveryv1.LabelSkipMirror: "true"}
	f = newFixture(t, selectorless(), ep)
	f.sync(t)
	if n := len(f.slices(t)); n != 0 {
		t.Fatalf("skip-mirror: %d mirrored", n)
	}
}

func TestSlicesGoWithTheService(t *testing.T) {
	f := newFixture(t, selectorless(), endpoints([]string{"10.1.0.1"}, nil))
	f.sync(t)
	if err := f.client.CoreV1().Services("ns").Delete(context.Background(), "db", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.refresh(t)
	f.sync(t)
	if n := len(f.slices(t)); n != 0 {
		t.Fatalf("%d slices left after the Service went", n)
	}
}
