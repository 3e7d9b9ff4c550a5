package drift

import (
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	deploymentstore "k8s.io/kubernetes/pkg/registry/apps/deployment"
	replicasetstore "k8s.io/kubernetes/pkg/registry/apps/replicaset"
	leasestore "k8s.io/kubernetes/pkg/registry/coordination/lease"
	configmapstore "k8s.io/kubernetes/pkg/registry/core/configmap"
	eventstore "k8s.io/kubernetes/pkg/registry/core/event"
	namespacestore "k8s.io/kubernetes/pkg/registry/core/namespace"
	nodestore "k8s.io/kubernetes/pkg/registry/core/node"
	podstore "k8s.io/kubernetes/pkg/registry/core/pod"
	secretstore "k8s.io/kubernetes/pkg/registry/core/secret"
	servicestore "k8s.io/kubernetes/pkg/registry/core/service"
	endpointslicestore "k8s.io/kubernetes/pkg/registry/discovery/endpointslice"
	ipaddressstore "k8s.io/kubernetes/pkg/registry/networking/ipaddress"
	servicecidrstore "k8s.io/kubernetes/pkg/registry/networking/servicecidr"
)

// upstreamStrategy is what kube-apiserver's generic store of a kind
// creates and updates with.
type upstreamStrategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
}

// corpusKind ties a corpus file's kind to the served type and upstream's
// registry strategy for it.
type corpusKind struct {
	gvk         schema.GroupVersionKind
	namespaced  bool
	newExternal func() runtime.Object
	upstream    upstreamStrategy
}

var corpusKinds = map[string]corpusKind{
	"Pod": {corev1.SchemeGroupVersion.WithKind("Pod"), true,
		func() runtime.Object { return &corev1.Pod{} }, podstore.Strategy},
	"Service": {corev1.SchemeGroupVersion.WithKind("Service"), true,
		func() runtime.Object { return &corev1.Service{} }, servicestore.Strategy},
	"Deployment": {appsv1.SchemeGroupVersion.WithKind("Deployment"), true,
		func() runtime.Object { return &appsv1.Deployment{} }, deploymentstore.Strategy},
	"ReplicaSet": {appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), true,
		func() runtime.Object { return &appsv1.ReplicaSet{} }, replicasetstore.Strategy},
	"EndpointSlice": {discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"), true,
		func() runtime.Object { return &discoveryv1.EndpointSlice{} }, endpointslicestore.Strategy},
	"Node": {corev1.SchemeGroupVersion.WithKind("Node"), false,
		func() runtime.Object { return &corev1.Node{} }, nodestore.Strategy},
	"Namespace": {corev1.SchemeGroupVersion.WithKind("Namespace"), false,
		func() runtime.Object { return &corev1.Namespace{} }, namespacestore.Strategy},
	"ConfigMap": {corev1.SchemeGroupVersion.WithKind("ConfigMap"), true,
		func() runtime.Object { return &corev1.ConfigMap{} }, configmapstore.Strategy},
	"Secret": {corev1.SchemeGroupVersion.WithKind("Secret"), true,
		func() runtime.Object { return &corev1.Secret{} }, secretstore.Strategy},
	"Event": {corev1.SchemeGroupVersion.WithKind("Event"), true,
		func() runtime.Object { return &corev1.Event{} }, eventstore.Strategy},
	"Lease": {coordinationv1.SchemeGroupVersion.WithKind("Lease"), true,
		func() runtime.Object { return &coordinationv1.Lease{} }, leasestore.Strategy},
	"ServiceCIDR": {networkingv1.SchemeGroupVersion.WithKind("ServiceCIDR"), false,
		func() runtime.Object { return &networkingv1.ServiceCIDR{} }, servicecidrstore.Strategy},
	"IPAddress": {networkingv1.SchemeGroupVersion.WithKind("IPAddress"), false,
		func() runtime.Object { return &networkingv1.IPAddress{} }, ipaddressstore.Strategy},
}
