package apiserver

import (
	"context"
	"sort"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions/apiextensions/v1"
	crdlisters "k8s.io/apiextensions-apiserver/pkg/client/listers/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/apiserver/pkg/endpoints/discovery"
	"k8s.io/apiserver/pkg/endpoints/discovery/aggregated"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/tools/cache"
)

// builtinGroupPriority ranks the built-in groups before every CRD group
// (which apiextensions ranks 1000) in aggregated discovery, as
// kube-apiserver's APIService priorities (15000–18000) do: a client that
// resolves a resource name served by both (kubectl get deployments) picks
// the built-in one.
const builtinGroupPriority = 17000

// prioritizeBuiltinGroups gives every built-in group version (and
// apiextensions.k8s.io's) builtinGroupPriority in aggregated discovery.
func prioritizeBuiltinGroups(m aggregated.ResourceManager, groups []*genericapiserver.APIGroupInfo) {
	set := func(gv schema.GroupVersion) {
		m.SetGroupVersionPriority(metav1.GroupVersion(gv), builtinGroupPriority, 15)
	}
	for _, g := range groups {
		for _, gv := range g.PrioritizedVersions {
			if _, served := g.VersionedResourcesStorageMap[gv.Version]; served {
				set(gv)
			}
		}
	}
	set(apiextensionsv1.SchemeGroupVersion)
}

// crdGroups lists the groups of the CustomResourceDefinitions in the
// unaggregated /apis (metav1.APIGroupList). apiextensions-apiserver
// serves /apis/<group> and /apis/<group>/<version> and feeds aggregated
// discovery itself, but leaves the /apis list to kube-apiserver's
// aggregator (an APIService per served CRD version, made by its
// crdRegistrationController); this does what those APIServices do there:
// every group with a served version is listed, its versions in
// kube-aware order (v2, v1, v1beta1, …), the first preferred. Groups the
// server has built in are left alone.
type crdGroups struct {
	lister  crdlisters.CustomResourceDefinitionLister
	manager discovery.GroupManager
	builtin map[string]bool

	mu    sync.Mutex
	added map[string]bool
}

// addCRDGroupsController keeps g's /apis list in step with the CRDs the
// informer sees; builtin are the groups the server has installed.
//
// /readyz waits (post-start hook "crd-group-list-synced") until the
// handler has seen every CRD the informer first listed, as it waits for
// apiextensions' own discovery.
func addCRDGroupsController(g *genericapiserver.GenericAPIServer, informer crdinformers.CustomResourceDefinitionInformer, builtin []string) error {
	c := newCRDGroups(informer.Lister(), g.DiscoveryGroupManager, builtin)
	sync := func(interface{}) { c.sync() }
	reg, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: sync, UpdateFunc: func(_, obj interface{}) { sync(obj) }, DeleteFunc: sync,
	})
	if err != nil {
		return err
	}
	return g.AddPostStartHook("crd-group-list-synced", func(hc genericapiserver.PostStartHookContext) error {
		return wait.PollUntilContextCancel(hc, 100*time.Millisecond, true, func(context.Context) (bool, error) {
			return reg.HasSynced(), nil
		})
	})
}

func newCRDGroups(lister crdlisters.CustomResourceDefinitionLister, m discovery.GroupManager, builtin []string) *crdGroups {
	c := &crdGroups{lister: lister, manager: m, builtin: map[string]bool{}, added: map[string]bool{}}
	for _, name := range builtin {
		c.builtin[name] = true
	}
	return c
}

// builtinGroups names the groups of infos and apiextensions.k8s.io.
func builtinGroups(infos []*genericapiserver.APIGroupInfo) []string {
	names := []string{apiextensionsv1.GroupName}
	for _, info := range infos {
		names = append(names, info.PrioritizedVersions[0].Group)
	}
	return names
}

// sync makes the manager list exactly the current CRD groups (besides the
// built-in ones).
func (c *crdGroups) sync() {
	crds, err := c.lister.List(labels.Everything())
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	want := crdAPIGroups(crds)
	for name := range c.added {
		if _, ok := want[name]; !ok {
			c.manager.RemoveGroup(name)
			delete(c.added, name)
		}
	}
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if c.builtin[name] {
			continue
		}
		c.manager.AddGroup(want[name])
		c.added[name] = true
	}
}

// crdAPIGroups returns the discovery group of every group with a served
// CRD version.
func crdAPIGroups(crds []*apiextensionsv1.CustomResourceDefinition) map[string]metav1.APIGroup {
	versions := map[string]map[string]bool{}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			if versions[crd.Spec.Group] == nil {
				versions[crd.Spec.Group] = map[string]bool{}
			}
			versions[crd.Spec.Group][v.Name] = true
		}
	}
	out := make(map[string]metav1.APIGroup, len(versions))
	for group, set := range versions {
		vs := make([]string, 0, len(set))
		for v := range set {
			vs = append(vs, v)
		}
		sort.Slice(vs, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(vs[i], vs[j]) > 0 })
		g := metav1.APIGroup{Name: group}
		for _, v := range vs {
			g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: group + "/" + v, Version: v})
		}
		g.PreferredVersion = g.Versions[0]
		out[group] = g
	}
	return out
}
