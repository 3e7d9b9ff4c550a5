package noderestriction

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/auth/node"
)

// admitPod: a node creates only mirror pods of its own and deletes only
// pods bound to it.
func (p *Plugin) admitPod(nodeName string, a admission.Attributes) error {
	switch a.GetOperation() {
	case admission.Create:
		return p.admitPodCreate(nodeName, a)
	case admission.Delete:
		existing, err := p.pods.Get(a.GetNamespace(), a.GetName())
		if apierrors.IsNotFound(err) {
			return err
		}
		if err != nil {
			return admission.NewForbidden(a, err)
		}
		if existing.NodeName != nodeName {
			return admission.NewForbidden(a, fmt.Errorf("node %q can only delete pods with spec.nodeName set to itself", nodeName))
		}
		return nil
	}
	return admission.NewForbidden(a, fmt.Errorf("unexpected operation %q, node %q can only create and delete mirror pods", a.GetOperation(), nodeName))
}

func (p *Plugin) admitPodCreate(nodeName string, a admission.Attributes) error {
	pod, ok := a.GetObject().(*corev1.Pod)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("unexpected type %T", a.GetObject()))
	}
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; !mirror {
		return admission.NewForbidden(a, fmt.Errorf("pod does not have %q annotation, node %q can only create mirror pods", corev1.MirrorPodAnnotationKey, nodeName))
	}
	if pod.Spec.NodeName != nodeName {
		return admission.NewForbidden(a, fmt.Errorf("node %q can only create pods with spec.nodeName set to itself", nodeName))
	}
	if err := p.checkMirrorOwner(nodeName, pod, a); err != nil {
		return err
	}
	refers, resource, err := apiObjectReference(pod)
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("error checking mirror pod for API references: %w", err))
	}
	if refers {
		return admission.NewForbidden(a, fmt.Errorf("node %q can not create pods that reference %s", nodeName, resource))
	}
	return nil
}

// checkMirrorOwner: a mirror pod's one owner reference is the node's Node
// (its UID), as controller, without blockOwnerDeletion.
func (p *Plugin) checkMirrorOwner(nodeName string, pod *corev1.Pod, a admission.Attributes) error {
	switch len(pod.OwnerReferences) {
	case 0:
		return admission.NewForbidden(a, fmt.Errorf("node %q can only create pods with an owner reference set to itself", nodeName))
	case 1:
	default:
		return admission.NewForbidden(a, fmt.Errorf("node %q can only create pods with a single owner reference set to itself", nodeName))
	}
	owner := pod.OwnerReferences[0]
	if owner.APIVersion != "v1" || owner.Kind != "Node" || owner.Name != nodeName {
		return admission.NewForbidden(a, fmt.Errorf("node %q can only create pods with an owner reference set to itself", nodeName))
	}
	if !ptr.Deref(owner.Controller, false) {
		return admission.NewForbidden(a, fmt.Errorf("node %q can only create pods with a controller owner reference set to itself", nodeName))
	}
	if ptr.Deref(owner.BlockOwnerDeletion, false) {
		return admission.NewForbidden(a, fmt.Errorf("node %q must not set blockOwnerDeletion on an owner reference", nodeName))
	}
	n, err := p.nodes.Get(nodeName)
	if apierrors.IsNotFound(err) {
		return err
	}
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("error looking up node %s to verify uid: %v", nodeName, err))
	}
	if owner.UID != n.UID {
		return admission.NewForbidden(a, fmt.Errorf("node %s UID mismatch: expected %s got %s", nodeName, owner.UID, n.UID))
	}
	return nil
}

// apiObjectReference reports the first API object kind a pod refers to
// (upstream's HasAPIObjectReference): a mirror pod may refer to none.
func apiObjectReference(pod *corev1.Pod) (bool, string, error) {
	if pod.Spec.ServiceAccountName != "" {
		return true, "serviceaccounts", nil
	}
	found := false
	node.VisitSecretNames(pod, func(string) { found = true })
	if found {
		return true, "secrets", nil
	}
	node.VisitConfigMapNames(pod, func(string) { found = true })
	if found {
		return true, "configmaps", nil
	}
	if len(pod.Spec.ResourceClaims) > 0 {
		return true, "resourceclaims", nil
	}
	for _, v := range pod.Spec.Volumes {
		if refers, resource, err := volumeReference(&v); refers || err != nil {
			return refers, resource, err
		}
	}
	return false, "", nil
}

func volumeReference(v *corev1.Volume) (bool, string, error) {
	switch {
	case v.AWSElasticBlockStore != nil, v.AzureDisk != nil, v.CephFS != nil, v.Cinder != nil,
		v.DownwardAPI != nil, v.EmptyDir != nil, v.FC != nil, v.FlexVolume != nil, v.Flocker != nil, v.GCEPersistentDisk != nil,
		v.GitRepo != nil, v.HostPath != nil, v.Image != nil, v.ISCSI != nil, v.NFS != nil, v.PhotonPersistentDisk != nil,
		v.PortworxVolume != nil, v.Quobyte != nil, v.RBD != nil, v.ScaleIO != nil, v.StorageOS != nil, v.VsphereVolume != nil:
		return false, "", nil
	case v.ConfigMap != nil:
		return true, "configmaps (via configmap volumes)", nil
	case v.Secret != nil:
		return true, "secrets (via secret volumes)", nil
	case v.CSI != nil:
		return true, "csidrivers (via CSI volumes)", nil
	case v.Glusterfs != nil:
		return true, "endpoints (via glusterFS volumes)", nil
	case v.PersistentVolumeClaim != nil:
		return true, "persistentvolumeclaims", nil
	case v.Ephemeral != nil:
		return true, "persistentvolumeclaims (via ephemeral volumes)", nil
	case v.AzureFile != nil:
		return true, "secrets (via azureFile volumes)", nil
	case v.Projected != nil:
		for _, s := range v.Projected.Sources {
			switch {
			case s.ConfigMap != nil:
				return true, "configmaps (via projected volumes)", nil
			case s.Secret != nil:
				return true, "secrets (via projected volumes)", nil
			case s.ServiceAccountToken != nil:
				return true, "serviceaccounts (via projected volumes)", nil
			case s.ClusterTrustBundle != nil:
				return true, "clustertrustbundles", nil
			case s.PodCertificate != nil:
				return true, "podcertificates", nil
			case s.DownwardAPI != nil:
			default:
				return true, "", fmt.Errorf("unknown source for projected volume %q", v.Name)
			}
		}
		return false, "", nil
	}
	return true, "", fmt.Errorf("unknown volume type for volume  %q", v.Name)
}

// admitPodStatus: status updates only of pods bound to the node, and not
// of their labels or resource claim statuses.
func admitPodStatus(nodeName string, a admission.Attributes) error {
	if a.GetOperation() != admission.Update {
		return admission.NewForbidden(a, fmt.Errorf("unexpected operation %q", a.GetOperation()))
	}
	oldPod, ok := a.GetOldObject().(*corev1.Pod)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("unexpected type %T", a.GetOldObject()))
	}
	if oldPod.Spec.NodeName != nodeName {
		return admission.NewForbidden(a, fmt.Errorf("node %q can only update pod status for pods with spec.nodeName set to itself", nodeName))
	}
	newPod, ok := a.GetObject().(*corev1.Pod)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("unexpected type %T", a.GetObject()))
	}
	if !labels.Equals(oldPod.Labels, newPod.Labels) {
		return admission.NewForbidden(a, fmt.Errorf("node %q cannot update labels through pod status", nodeName))
	}
	if !node.ClaimStatusesEqual(oldPod.Status.ResourceClaimStatuses, newPod.Status.ResourceClaimStatuses) {
		return admission.NewForbidden(a, fmt.Errorf("node %q cannot update resource claim statues", nodeName))
	}
	if !extendedClaimStatusEqual(oldPod.Status.ExtendedResourceClaimStatus, newPod.Status.ExtendedResourceClaimStatus) {
		return admission.NewForbidden(a, fmt.Errorf("node %q cannot update extended resource claim status", nodeName))
	}
	return nil
}

func extendedClaimStatusEqual(a, b *corev1.PodExtendedResourceClaimStatus) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.ResourceClaimName != b.ResourceClaimName || len(a.RequestMappings) != len(b.RequestMappings) {
		return false
	}
	for i := range a.RequestMappings {
		if a.RequestMappings[i] != b.RequestMappings[i] {
			return false
		}
	}
	return true
}

// admitPodEviction: a node evicts only pods bound to it.
func (p *Plugin) admitPodEviction(nodeName string, a admission.Attributes) error {
	if a.GetOperation() != admission.Create {
		return admission.NewForbidden(a, fmt.Errorf("unexpected operation %s", a.GetOperation()))
	}
	var evictionName string
	switch e := a.GetObject().(type) {
	case *policyv1.Eviction:
		evictionName = e.Name
	case *policyv1beta1.Eviction:
		evictionName = e.Name
	default:
		return admission.NewForbidden(a, fmt.Errorf("unexpected type %T", a.GetObject()))
	}
	podName := a.GetName()
	if podName == "" {
		if evictionName == "" {
			return admission.NewForbidden(a, fmt.Errorf("could not determine pod from request data"))
		}
		podName = evictionName
	}
	existing, err := p.pods.Get(a.GetNamespace(), podName)
	if apierrors.IsNotFound(err) {
		return err
	}
	if err != nil {
		return admission.NewForbidden(a, err)
	}
	if existing.NodeName != nodeName {
		return admission.NewForbidden(a, fmt.Errorf("node %s can only evict pods with spec.nodeName set to itself", nodeName))
	}
	return nil
}
