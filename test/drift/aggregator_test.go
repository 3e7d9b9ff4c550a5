package drift

import (
	"fmt"
	"math/rand"
	"reflect"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	apiextensionsinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	controlplaneapiserver "k8s.io/kubernetes/pkg/controlplane/apiserver"
	"k8s.io/kubernetes/pkg/controlplane/controller/crdregistration"

	"github.com/svcplane/svcplane/internal/aggregator"
)

// TestAPIServicePrioritiesMatchUpstream: every generic control-plane
// priority upstream has is ours too. kube-apiserver's own additions live
// in an unexported map of cmd/kube-apiserver/app; the one of them that
// overrides a generic entry (resource.k8s.io/v1alpha3) is left out.
func TestAPIServicePrioritiesMatchUpstream(t *testing.T) {
	ours := aggregator.APIVersionPriorities()
	for gv, want := range controlplaneapiserver.DefaultGenericAPIServicePriorities() {
		if gv.Group == "resource.k8s.io" && gv.Version == "v1alpha3" {
			continue
		}
		got, ok := ours[gv]
		if !ok || got.Group != want.Group || got.Version != want.Version {
			t.Errorf("%v: ours %+v (present %v), upstream %+v", gv, got, ok, want)
		}
	}
}

// registrations records a CRD registration controller's asks.
type registrations struct {
	mu  sync.Mutex
	set map[string]apiregistrationv1.APIServiceSpec
}

func (r *registrations) AddAPIServiceToSync(in *apiregistrationv1.APIService) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.set[in.Name] = in.Spec
}

func (r *registrations) RemoveAPIServiceToSync(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.set, name)
}

func (r *registrations) snapshot() map[string]apiregistrationv1.APIServiceSpec {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]apiregistrationv1.APIServiceSpec{}
	for k, v := range r.set {
		out[k] = v
	}
	return out
}

func randomCRDs(rng *rand.Rand) []runtime.Object {
	groups := []string{"a.example.com", "b.example.com", "c.example.com"}
	versions := []string{"v1", "v1beta1", "v2", "v1alpha1"}
	var out []runtime.Object
	for i := range rng.Intn(6) {
		crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("r%d.x", i)}}
		crd.Spec.Group = groups[rng.Intn(len(groups))]
		for _, v := range versions {
			if rng.Intn(2) == 0 {
				crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v, Served: rng.Intn(3) > 0})
			}
		}
		out = append(out, crd)
	}
	return out
}

// TestCRDRegistrationMatchesUpstream runs random CRD sets through
// kube-apiserver's crdRegistrationController and ours: after the initial
// sync both ask for the same APIServices with the same specs.
func TestCRDRegistrationMatchesUpstream(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := range 100 {
		crds := randomCRDs(rng)
		stop := make(chan struct{})
		factory := apiextensionsinformers.NewSharedInformerFactory(apiextensionsfake.NewSimpleClientset(crds...), 0)
		informer := factory.Apiextensions().V1().CustomResourceDefinitions()
		theirs := &registrations{set: map[string]apiregistrationv1.APIServiceSpec{}}
		upstream := crdregistration.NewCRDRegistrationController(informer, theirs)
		mine := &registrations{set: map[string]apiregistrationv1.APIServiceSpec{}}
		ours, err := aggregator.NewCRDRegistration(informer, mine)
		if err != nil {
			t.Fatal(err)
		}
		factory.Start(stop)
		go upstream.Run(1, stop)
		go ours.Run(1, stop)
		done := make(chan struct{})
		go func() { upstream.WaitForInitialSync(); ours.WaitForInitialSync(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("round %d: no initial sync", round)
		}
		close(stop)
		factory.Shutdown()
		got, want := mine.snapshot(), theirs.snapshot()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("round %d: ours %v\nupstream %v", round, got, want)
		}
	}
}
