package drift

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	deploymentstore "k8s.io/kubernetes/pkg/registry/apps/deployment"
	replicasetstore "k8s.io/kubernetes/pkg/registry/apps/replicaset"
	hpastore "k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
	cronjobstore "k8s.io/kubernetes/pkg/registry/batch/cronjob"
	jobstore "k8s.io/kubernetes/pkg/registry/batch/job"
	csrstore "k8s.io/kubernetes/pkg/registry/certificates/certificates"
	leasestore "k8s.io/kubernetes/pkg/registry/coordination/lease"
	configmapstore "k8s.io/kubernetes/pkg/registry/core/configmap"
	endpointsstore "k8s.io/kubernetes/pkg/registry/core/endpoint"
	eventstore "k8s.io/kubernetes/pkg/registry/core/event"
	namespacestore "k8s.io/kubernetes/pkg/registry/core/namespace"
	nodestore "k8s.io/kubernetes/pkg/registry/core/node"
	podstore "k8s.io/kubernetes/pkg/registry/core/pod"
	podtemplatestore "k8s.io/kubernetes/pkg/registry/core/podtemplate"
	rcstore "k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	secretstore "k8s.io/kubernetes/pkg/registry/core/secret"
	servicestore "k8s.io/kubernetes/pkg/registry/core/service"
	serviceaccountstore "k8s.io/kubernetes/pkg/registry/core/serviceaccount"
	endpointslicestore "k8s.io/kubernetes/pkg/registry/discovery/endpointslice"
	ingressstore "k8s.io/kubernetes/pkg/registry/networking/ingress"
	ingressclassstore "k8s.io/kubernetes/pkg/registry/networking/ingressclass"
	ipaddressstore "k8s.io/kubernetes/pkg/registry/networking/ipaddress"
	servicecidrstore "k8s.io/kubernetes/pkg/registry/networking/servicecidr"
	runtimeclassstore "k8s.io/kubernetes/pkg/registry/node/runtimeclass"
	pdbstore "k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"
	clusterrolestore "k8s.io/kubernetes/pkg/registry/rbac/clusterrole"
	clusterrolebindingstore "k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding"
	rolestore "k8s.io/kubernetes/pkg/registry/rbac/role"
	rolebindingstore "k8s.io/kubernetes/pkg/registry/rbac/rolebinding"
	priorityclassstore "k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"
	csinodestore "k8s.io/kubernetes/pkg/registry/storage/csinode"
	storageclassstore "k8s.io/kubernetes/pkg/registry/storage/storageclass"
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
	// status is upstream's /status strategy (set from upstreamStatus),
	// approval its /approval strategy (from upstreamApproval).
	status, approval rest.RESTUpdateStrategy
}

// subresource returns upstream's strategy of the named subresource.
func (k corpusKind) subresource(name string) rest.RESTUpdateStrategy {
	switch name {
	case "status":
		return k.status
	case "approval":
		return k.approval
	}
	return nil
}

// upstreamApproval are upstream's /approval strategies.
var upstreamApproval = map[string]rest.RESTUpdateStrategy{
	"CertificateSigningRequest": csrstore.ApprovalStrategy,
}

// upstreamStatus are upstream's strategies of the /status subresources
// the corpus has cases for.
var upstreamStatus = map[string]rest.RESTUpdateStrategy{
	"Pod":                       podstore.StatusStrategy,
	"Node":                      nodestore.StatusStrategy,
	"Service":                   servicestore.StatusStrategy,
	"Namespace":                 namespacestore.StatusStrategy,
	"Deployment":                deploymentstore.StatusStrategy,
	"ReplicaSet":                replicasetstore.StatusStrategy,
	"PodDisruptionBudget":       pdbstore.StatusStrategy,
	"Ingress":                   ingressstore.StatusStrategy,
	"CertificateSigningRequest": csrstore.StatusStrategy,
	"Job":                       jobstore.StatusStrategy,
	"CronJob":                   cronjobstore.StatusStrategy,
	"HorizontalPodAutoscaler":   hpastore.StatusStrategy,
}

var corpusKinds = map[string]corpusKind{
	"Pod": {corev1.SchemeGroupVersion.WithKind("Pod"), true,
		func() runtime.Object { return &corev1.Pod{} }, podstore.Strategy, nil, nil},
	"Service": {corev1.SchemeGroupVersion.WithKind("Service"), true,
		func() runtime.Object { return &corev1.Service{} }, servicestore.Strategy, nil, nil},
	"Deployment": {appsv1.SchemeGroupVersion.WithKind("Deployment"), true,
		func() runtime.Object { return &appsv1.Deployment{} }, deploymentstore.Strategy, nil, nil},
	"ReplicaSet": {appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), true,
		func() runtime.Object { return &appsv1.ReplicaSet{} }, replicasetstore.Strategy, nil, nil},
	"EndpointSlice": {discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"), true,
		func() runtime.Object { return &discoveryv1.EndpointSlice{} }, endpointslicestore.Strategy, nil, nil},
	"Node": {corev1.SchemeGroupVersion.WithKind("Node"), false,
		func() runtime.Object { return &corev1.Node{} }, nodestore.Strategy, nil, nil},
	"Namespace": {corev1.SchemeGroupVersion.WithKind("Namespace"), false,
		func() runtime.Object { return &corev1.Namespace{} }, namespacestore.Strategy, nil, nil},
	"ConfigMap": {corev1.SchemeGroupVersion.WithKind("ConfigMap"), true,
		func() runtime.Object { return &corev1.ConfigMap{} }, configmapstore.Strategy, nil, nil},
	"Secret": {corev1.SchemeGroupVersion.WithKind("Secret"), true,
		func() runtime.Object { return &corev1.Secret{} }, secretstore.Strategy, nil, nil},
	"Event": {corev1.SchemeGroupVersion.WithKind("Event"), true,
		func() runtime.Object { return &corev1.Event{} }, eventstore.Strategy, nil, nil},
	"Lease": {coordinationv1.SchemeGroupVersion.WithKind("Lease"), true,
		func() runtime.Object { return &coordinationv1.Lease{} }, leasestore.Strategy, nil, nil},
	"ServiceCIDR": {networkingv1.SchemeGroupVersion.WithKind("ServiceCIDR"), false,
		func() runtime.Object { return &networkingv1.ServiceCIDR{} }, servicecidrstore.Strategy, nil, nil},
	"IPAddress": {networkingv1.SchemeGroupVersion.WithKind("IPAddress"), false,
		func() runtime.Object { return &networkingv1.IPAddress{} }, ipaddressstore.Strategy, nil, nil},

	// Served kinds beyond the thirteen the issue names: a few cases each,
	// for the metadata rules they share with the others.
	"ReplicationController": {corev1.SchemeGroupVersion.WithKind("ReplicationController"), true,
		func() runtime.Object { return &corev1.ReplicationController{} }, rcstore.Strategy, nil, nil},
	"PodTemplate": {corev1.SchemeGroupVersion.WithKind("PodTemplate"), true,
		func() runtime.Object { return &corev1.PodTemplate{} }, podtemplatestore.Strategy, nil, nil},
	"Endpoints": {corev1.SchemeGroupVersion.WithKind("Endpoints"), true,
		func() runtime.Object { return &corev1.Endpoints{} }, endpointsstore.Strategy, nil, nil},
	"ServiceAccount": {corev1.SchemeGroupVersion.WithKind("ServiceAccount"), true,
		func() runtime.Object { return &corev1.ServiceAccount{} }, serviceaccountstore.Strategy, nil, nil},
	"Event.events.k8s.io": {eventsv1.SchemeGroupVersion.WithKind("Event"), true,
		func() runtime.Object { return &eventsv1.Event{} }, eventstore.Strategy, nil, nil},
	"Role": {rbacv1.SchemeGroupVersion.WithKind("Role"), true,
		func() runtime.Object { return &rbacv1.Role{} }, rolestore.Strategy, nil, nil},
	"ClusterRole": {rbacv1.SchemeGroupVersion.WithKind("ClusterRole"), false,
		func() runtime.Object { return &rbacv1.ClusterRole{} }, clusterrolestore.Strategy, nil, nil},
	"RoleBinding": {rbacv1.SchemeGroupVersion.WithKind("RoleBinding"), true,
		func() runtime.Object { return &rbacv1.RoleBinding{} }, rolebindingstore.Strategy, nil, nil},
	"ClusterRoleBinding": {rbacv1.SchemeGroupVersion.WithKind("ClusterRoleBinding"), false,
		func() runtime.Object { return &rbacv1.ClusterRoleBinding{} }, clusterrolebindingstore.Strategy, nil, nil},

	// The groups the discovery conformance specs list.
	"PriorityClass": {schedulingv1.SchemeGroupVersion.WithKind("PriorityClass"), false,
		func() runtime.Object { return &schedulingv1.PriorityClass{} }, priorityclassstore.Strategy, nil, nil},
	"RuntimeClass": {nodev1.SchemeGroupVersion.WithKind("RuntimeClass"), false,
		func() runtime.Object { return &nodev1.RuntimeClass{} }, runtimeclassstore.Strategy, nil, nil},
	"CSINode": {storagev1.SchemeGroupVersion.WithKind("CSINode"), false,
		func() runtime.Object { return &storagev1.CSINode{} }, csinodestore.Strategy, nil, nil},
	"PodDisruptionBudget": {policyv1.SchemeGroupVersion.WithKind("PodDisruptionBudget"), true,
		func() runtime.Object { return &policyv1.PodDisruptionBudget{} }, pdbstore.Strategy, nil, nil},
	"Ingress": {networkingv1.SchemeGroupVersion.WithKind("Ingress"), true,
		func() runtime.Object { return &networkingv1.Ingress{} }, ingressstore.Strategy, nil, nil},
	"IngressClass": {networkingv1.SchemeGroupVersion.WithKind("IngressClass"), false,
		func() runtime.Object { return &networkingv1.IngressClass{} }, ingressclassstore.Strategy, nil, nil},
	"CertificateSigningRequest": {certificatesv1.SchemeGroupVersion.WithKind("CertificateSigningRequest"), false,
		func() runtime.Object { return &certificatesv1.CertificateSigningRequest{} }, csrstore.Strategy, nil, nil},
	"Job": {batchv1.SchemeGroupVersion.WithKind("Job"), true,
		func() runtime.Object { return &batchv1.Job{} }, jobstore.Strategy, nil, nil},
	"CronJob": {batchv1.SchemeGroupVersion.WithKind("CronJob"), true,
		func() runtime.Object { return &batchv1.CronJob{} }, cronjobstore.Strategy, nil, nil},
	"HorizontalPodAutoscaler": {autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler"), true,
		func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscaler{} }, hpastore.Strategy, nil, nil},
	"StorageClass": {storagev1.SchemeGroupVersion.WithKind("StorageClass"), false,
		func() runtime.Object { return &storagev1.StorageClass{} }, storageclassstore.Strategy, nil, nil},
}
