package apiserver

import (
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/svcplane/svcplane/internal/auth/rbac"
	"github.com/svcplane/svcplane/internal/queryparams"
	"github.com/svcplane/svcplane/internal/registry/apps/deployment"
	"github.com/svcplane/svcplane/internal/registry/apps/replicaset"
	"github.com/svcplane/svcplane/internal/registry/core/namespace"
	"github.com/svcplane/svcplane/internal/registry/core/pod"
	"github.com/svcplane/svcplane/internal/registry/core/replicationcontroller"
	"github.com/svcplane/svcplane/internal/registry/core/serviceaccount"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// apiGroups builds the storage of every definition and groups it by API
// group, ready for InstallLegacyAPIGroup (core) and InstallAPIGroups.
//
// byResource is filled with each resource's storages, keyed by the group
// resource ("services", "ipaddresses.networking.k8s.io"), for the wiring
// between resources (services → IPAddress objects).
//
// esc guards the RBAC resources' writes; tokens (nil: none) configures
// serviceaccounts/token; extra are storages that no
// definition describes (the create-only reviews), by group version.
func apiGroups(defs []*resource.Definition, scheme *runtime.Scheme, codecs serializer.CodecFactory, optsGetter generic.RESTOptionsGetter, byResource map[string]map[string]rest.Storage, esc *rbac.Escalation, tokens *serviceaccount.TokenConfig, extra map[schema.GroupVersion]map[string]rest.Storage) (*genericapiserver.APIGroupInfo, []*genericapiserver.APIGroupInfo, error) {
	infos := map[string]*genericapiserver.APIGroupInfo{}
	var order []string
	versionMap := func(gv schema.GroupVersion) map[string]rest.Storage {
		info, ok := infos[gv.Group]
		if !ok {
			// The pods and nodes subresources' options are decoded with
			// the server's scheme; the meta options as usual.
			i := genericapiserver.NewDefaultAPIGroupInfo(gv.Group, scheme, queryparams.ParameterCodec(scheme, metav1.ParameterCodec), codecs)
			info = &i
			infos[gv.Group] = info
			order = append(order, gv.Group)
		}
		if info.VersionedResourcesStorageMap[gv.Version] == nil {
			info.VersionedResourcesStorageMap[gv.Version] = map[string]rest.Storage{}
		}
		return info.VersionedResourcesStorageMap[gv.Version]
	}
	for _, def := range defs {
		storages, err := storageFor(def, scheme, optsGetter, esc, tokens)
		if err != nil {
			return nil, nil, err
		}
		for _, gv := range def.ServedVersions() {
			m := versionMap(gv)
			for path, s := range storages {
				m[path] = s
			}
		}
		if byResource != nil {
			byResource[def.GroupResource().String()] = storages
		}
	}
	gvs := make([]schema.GroupVersion, 0, len(extra))
	for gv := range extra {
		gvs = append(gvs, gv)
	}
	sort.Slice(gvs, func(i, j int) bool { return gvs[i].String() < gvs[j].String() })
	for _, gv := range gvs {
		m := versionMap(gv)
		for path, s := range extra[gv] {
			m[path] = s
		}
	}
	core, ok := infos[""]
	if !ok {
		return nil, nil, fmt.Errorf("no core resources")
	}
	var named []*genericapiserver.APIGroupInfo
	for _, g := range order {
		if g != "" {
			named = append(named, infos[g])
		}
	}
	return core, named, nil
}

// storageFor returns the REST storage of a resource and its subresources,
// keyed by path ("pods", "pods/status", …).
// The RBAC resources' writes go through esc's escalation check;
// serviceaccounts/token issues tokens as tokens says.
func storageFor(def *resource.Definition, scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter, esc *rbac.Escalation, tokens *serviceaccount.TokenConfig) (map[string]rest.Storage, error) {
	main, err := resource.NewStore(def, scheme, optsGetter)
	if err != nil {
		return nil, err
	}
	out := map[string]rest.Storage{def.Resource: main}
	switch def.GroupResource().String() {
	case "namespaces":
		ns := namespace.NewREST(main)
		out[def.Resource] = ns
		out["namespaces/finalize"] = namespace.NewFinalizeREST(ns)
	case "pods":
		out["pods/binding"] = pod.NewBindingREST(main.Store)
	case "deployments.apps":
		out["deployments/scale"] = resource.NewScaleREST(main, deployment.Scale)
	case "replicationcontrollers":
		out["replicationcontrollers/scale"] = resource.NewScaleREST(main, replicationcontroller.Scale)
	case "serviceaccounts":
		if tokens != nil {
			out["serviceaccounts/token"] = serviceaccount.NewTokenREST(main, *tokens)
		}
	case "replicasets.apps":
		out["replicasets/scale"] = resource.NewScaleREST(main, replicaset.Scale)
	case "roles.rbac.authorization.k8s.io", "clusterroles.rbac.authorization.k8s.io",
		"rolebindings.rbac.authorization.k8s.io", "clusterrolebindings.rbac.authorization.k8s.io":
		if esc != nil {
			out[def.Resource] = &escalationGuarded{REST: main, esc: esc}
		}
	}
	// After the per-resource wrappers: /status copies the main store with
	// the hooks they set (a status write to a Terminating namespace must
	// not delete it while spec.finalizers remain).
	if def.Status != nil {
		out[def.Resource+"/status"] = resource.NewStatusREST(main)
	}
	for name, sd := range def.Subresources {
		out[def.Resource+"/"+name] = resource.NewSubresourceREST(main, sd)
	}
	return out, nil
}
