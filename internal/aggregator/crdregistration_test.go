package aggregator

import (
	"reflect"
	"sort"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdlisters "k8s.io/apiextensions-apiserver/pkg/client/listers/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// registrations records what the autoregister controller is asked, as
// its sync set: name → spec.
type registrations map[string]apiregistrationv1.APIServiceSpec

func (r registrations) AddAPIServiceToSync(in *apiregistrationv1.APIService) { r[in.Name] = in.Spec }
func (r registrations) RemoveAPIServiceToSync(name string)                   { delete(r, name) }

func crd(name, group string, versions map[string]bool) *apiextensionsv1.CustomResourceDefinition {
	c := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name}}
	c.Spec.Group = group
	names := make([]string, 0, len(versions))
	for v := range versions {
		names = append(names, v)
	}
	sort.Strings(names)
	for _, v := range names {
		c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v, Served: versions[v]})
	}
	return c
}

func TestCRDRegistrationSync(t *testing.T) {
	for _, tc := range []struct {
		name string
		crds []*apiextensionsv1.CustomResourceDefinition
		// before is registered already; sync runs for every gv named.
		before registrations
		sync   []schema.GroupVersion
		want   []string
	}{{
		name: "served versions get an APIService",
		crds: []*apiextensionsv1.CustomResourceDefinition{crd("widgets.example.com", "example.com", map[string]bool{"v1": true, "v1beta1": true})},
		sync: []schema.GroupVersion{{Group: "example.com", Version: "v1"}, {Group: "example.com", Version: "v1beta1"}},
		want: []string{"v1.example.com", "v1beta1.example.com"},
	}, {
		name:   "an unserved version loses its APIService",
		crds:   []*apiextensionsv1.CustomResourceDefinition{crd("widgets.example.com", "example.com", map[string]bool{"v1": true, "v1beta1": false})},
		before: registrations{"v1beta1.example.com": {}},
		sync:   []schema.GroupVersion{{Group: "example.com", Version: "v1"}, {Group: "example.com", Version: "v1beta1"}},
		want:   []string{"v1.example.com"},
	}, {
		name: "a version served by another CRD of the group stays",
		crds: []*apiextensionsv1.CustomResourceDefinition{
			crd("widgets.example.com", "example.com", map[string]bool{"v1": false}),
			crd("gadgets.example.com", "example.com", map[string]bool{"v1": true}),
		},
		sync: []schema.GroupVersion{{Group: "example.com", Version: "v1"}},
		want: []string{"v1.example.com"},
	}, {
		name:   "no CRD left: removed",
		before: registrations{"v1.example.com": {}},
		sync:   []schema.GroupVersion{{Group: "example.com", Version: "v1"}},
		want:   []string{},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			for _, c := range tc.crds {
				if err := indexer.Add(c); err != nil {
					t.Fatal(err)
				}
			}
			reg := registrations{}
			for k, v := range tc.before {
				reg[k] = v
			}
			c := &CRDRegistration{lister: crdlisters.NewCustomResourceDefinitionLister(indexer), registration: reg}
			for _, gv := range tc.sync {
				if err := c.sync(gv); err != nil {
					t.Fatal(err)
				}
			}
			got := []string{}
			for name, spec := range reg {
				got = append(got, name)
				if spec.Service != nil || spec.GroupPriorityMinimum != 1000 || spec.VersionPriority != 100 {
					t.Errorf("%s: spec %+v, want local with priorities 1000/100", name, spec)
				}
			}
			sort.Strings(got)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("registered %v, want %v", got, tc.want)
			}
		})
	}
}
