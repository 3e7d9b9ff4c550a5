package aggregator

import (
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

type recordedRegistrations struct{ names []string }

func (r *recordedRegistrations) AddAPIServiceToSyncOnStart(in *apiregistrationv1.APIService) {
	r.names = append(r.names, in.Name)
}

func TestLocalAPIServices(t *testing.T) {
	listed := []string{"/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/apis/apiextensions.k8s.io/v1",
		"/apis/example.com/v1", "/healthz", "/openapi/v2", "/version"}
	r := &recordedRegistrations{}
	got := localAPIServices(listed, r, APIVersionPriorities())
	want := []string{"v1.", "v1.apps", "v1.apiextensions.k8s.io"}
	if !reflect.DeepEqual(r.names, want) {
		t.Fatalf("registered %v, want %v (example.com/v1 has no priority and is skipped)", r.names, want)
	}
	if len(got) != 3 || got[0].Spec.Group != "" || got[0].Spec.Version != "v1" || got[0].Spec.Service != nil {
		t.Fatalf("v1.: %+v", got[0].Spec)
	}
	if p := got[1].Spec; p.GroupPriorityMinimum != 17800 || p.VersionPriority != 15 {
		t.Errorf("v1.apps priorities %d/%d, want kube-apiserver's 17800/15", p.GroupPriorityMinimum, p.VersionPriority)
	}
}

func TestPrioritiesHaveNoDuplicates(t *testing.T) {
	seen := map[schema.GroupVersion]bool{}
	for _, p := range kubeAPIServerPriorities {
		gv := schema.GroupVersion{Group: p.group, Version: p.version}
		if seen[gv] {
			t.Errorf("%v listed twice", gv)
		}
		seen[gv] = true
	}
}

func TestAvailableCheck(t *testing.T) {
	c := &availableCheck{pending: map[string]bool{"v1.": true, "v1.apps": true}}
	available := func(name string, status apiregistrationv1.ConditionStatus) *apiregistrationv1.APIService {
		return &apiregistrationv1.APIService{
			ObjectMeta: metav1ObjectMeta(name),
			Status: apiregistrationv1.APIServiceStatus{Conditions: []apiregistrationv1.APIServiceCondition{
				{Type: apiregistrationv1.Available, Status: status},
			}},
		}
	}
	c.observe(available("v1.", apiregistrationv1.ConditionTrue))
	c.observe(available("v1.apps", apiregistrationv1.ConditionFalse))
	err := c.check(nil)
	if err == nil || !strings.Contains(err.Error(), "missing APIService: [v1.apps]") {
		t.Fatalf("check = %v, want v1.apps missing", err)
	}
	c.observe(available("v1.apps", apiregistrationv1.ConditionTrue))
	// Once seen Available it stays done, whatever comes later.
	c.observe(available("v1.apps", apiregistrationv1.ConditionFalse))
	if err := c.check(nil); err != nil {
		t.Fatalf("check = %v, want nil", err)
	}
}

func metav1ObjectMeta(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name} }
