// Package noderestriction is the NodeRestriction admission plugin, as
// kube-apiserver's (plugin/pkg/admission/noderestriction in
// k8s.io/kubernetes): it narrows what the Node authorizer lets a node do
// to its own objects. For a node identity (user "system:node:<name>" in
// group system:nodes) it admits
//
//   - Nodes: create and update of its own Node only; no configSource, no
//     change of taints or ownerReferences, and no node-restriction.kubernetes.io/
//     label nor a kubernetes.io / k8s.io label other than the kubelet's
//     own (hostname, zone, region, instance type, os, arch,
//     kubelet.kubernetes.io/, node.kubernetes.io/);
//   - Pods: create of mirror pods bound to itself, owned by its Node and
//     referring to no API object; delete of pods bound to itself; status
//     updates of pods bound to itself that change no labels nor resource
//     claim statuses; eviction of pods bound to itself;
//   - Leases: only kube-node-lease/<name>;
//   - ServiceAccount tokens: only bound to a pod (with its UID) bound to
//     itself.
//
// Other users pass untouched. Messages are upstream's. The resources
// upstream also guards that svcplane does not serve (PVC status, CSINode,
// ResourceSlice, CertificateSigningRequest, PodCertificateRequest) are
// left out: no request for them reaches admission.
package noderestriction
