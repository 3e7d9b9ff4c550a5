package apiserver

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdlisters "k8s.io/apiextensions-apiserver/pkg/client/listers/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/endpoints/discovery"
	"k8s.io/client-go/tools/cache"
)

func crd(group, plural string, versions ...apiextensionsv1.CustomResourceDefinitionVersion) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
		Spec:       apiextensionsv1.CustomResourceDefinitionSpec{Group: group, Versions: versions},
	}
}

func served(name string) apiextensionsv1.CustomResourceDefinitionVersion {
	return apiextensionsv1.CustomResourceDefinitionVersion{Name: name, Served: true}
}

func notServed(name string) apiextensionsv1.CustomResourceDefinitionVersion {
	return apiextensionsv1.CustomResourceDefinitionVersion{Name: name}
}

// listed is a group as the /apis list shows it: its versions, preferred
// first.
func listed(g metav1.APIGroup) []string {
	out := []string{g.PreferredVersion.GroupVersion}
	for _, v := range g.Versions {
		out = append(out, v.GroupVersion)
	}
	return out
}

func TestCRDAPIGroups(t *testing.T) {
	tests := []struct {
		name string
		crds []*apiextensionsv1.CustomResourceDefinition
		want map[string][]string // group → preferred, then versions in order
	}{
		{name: "none", want: map[string][]string{}},
		{
			name: "kube-aware version order, preferred first",
			crds: []*apiextensionsv1.CustomResourceDefinition{
				crd("a.io", "xs", served("v1beta1"), served("v1"), served("v2alpha1"), served("v1alpha1"), served("v2")),
			},
			want: map[string][]string{"a.io": {"a.io/v2", "a.io/v2", "a.io/v1", "a.io/v1beta1", "a.io/v2alpha1", "a.io/v1alpha1"}},
		},
		{
			name: "versions of one group's CRDs merge; unserved left out",
			crds: []*apiextensionsv1.CustomResourceDefinition{
				crd("a.io", "xs", served("v1"), notServed("v2")),
				crd("a.io", "ys", served("v1beta1")),
				crd("b.io", "zs", notServed("v1")),
			},
			want: map[string][]string{"a.io": {"a.io/v1", "a.io/v1", "a.io/v1beta1"}},
		},
		{
			name: "non-kube version names sort after kube ones, alphabetically",
			crds: []*apiextensionsv1.CustomResourceDefinition{crd("a.io", "xs", served("foo"), served("v1"), served("bar"))},
			want: map[string][]string{"a.io": {"a.io/v1", "a.io/v1", "a.io/bar", "a.io/foo"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string][]string{}
			for name, g := range crdAPIGroups(tt.crds) {
				if g.Name != name {
					t.Errorf("group %q named %q", name, g.Name)
				}
				got[name] = listed(g)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// apisList serves the handler's /apis and returns the group names in order.
func apisList(t *testing.T, h discovery.GroupManager) []string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/apis", nil))
	var list metav1.APIGroupList
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		t.Fatalf("/apis: %v: %s", err, rec.Body.String())
	}
	var names []string
	for _, g := range list.Groups {
		names = append(names, g.Name)
	}
	return names
}

// TestCRDGroupsSync drives the /apis list through CRDs appearing, changing
// and going, on the generic server's own root handler.
func TestCRDGroupsSync(t *testing.T) {
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, metav1.SchemeGroupVersion)
	h := discovery.NewRootAPIsHandler(discovery.DefaultAddresses{DefaultAddress: "127.0.0.1"}, serializer.NewCodecFactory(scheme))
	h.AddGroup(metav1.APIGroup{Name: "apps"})
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	c := newCRDGroups(crdlisters.NewCustomResourceDefinitionLister(indexer), h, []string{"apps"})

	step := func(what string, want ...string) {
		t.Helper()
		c.sync()
		if got := apisList(t, h); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: /apis lists %v, want %v", what, got, want)
		}
	}
	b := crd("b.io", "xs", served("v1"))
	_ = indexer.Add(b)
	_ = indexer.Add(crd("a.io", "ys", served("v1")))
	step("two CRD groups", "apps", "a.io", "b.io")

	// A CRD in a built-in group must not take the group away when it goes.
	apps := crd("apps", "gizmos", served("v1"))
	_ = indexer.Add(apps)
	step("CRD in a built-in group", "apps", "a.io", "b.io")
	_ = indexer.Delete(apps)
	step("CRD in a built-in group deleted", "apps", "a.io", "b.io")

	b2 := b.DeepCopy()
	b2.Spec.Versions[0].Served = false
	_ = indexer.Update(b2)
	step("b.io no longer served", "apps", "a.io")

	_ = indexer.Update(b)
	step("b.io served again", "apps", "a.io", "b.io")
	_ = indexer.Delete(b)
	step("b.io deleted", "apps", "a.io")
}
