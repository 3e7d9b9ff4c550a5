// Package node is svcplane's Node authorizer: what a kubelet (a node
// agent) may do, as kube-apiserver's --authorization-mode=Node decides it
// (plugin/pkg/auth/authorizer/node in k8s.io/kubernetes, which the main
// module does not import; test/drift compares the two on the same objects).
//
// A node identity is user "system:node:<name>" in group system:nodes
// (Identity). Requests from any other user get no opinion; a node's
// requests are decided by:
//
//   - Nodes: its own Node object only for get/list/watch; create, update
//     and patch (and status) of any, which the NodeRestriction admission
//     plugin narrows to its own.
//   - Pods: get of a pod bound to it; list/watch only with the field
//     selector spec.nodeName=<name> (or of one pod bound to it);
//     create/delete (mirror pods), status and eviction, which admission
//     narrows.
//   - Secrets, ConfigMaps (get/list/watch of one object), PVCs, resource
//     claims (get), ServiceAccounts (get, and create of token) only when
//     a pod bound to the node references them: the Graph, fed by a pods
//     informer, keeps per referenced object the nodes of its pods.
//   - Leases: only kube-node-lease/<name> (create of any name there, which
//     admission narrows).
//   - everything else: the static rules of the bootstrap policy's
//     "system:node" ClusterRole.
//
// Decisions and reasons are upstream's, with its default feature gates of
// v1.36 (AuthorizeNodeWithSelectors on, PodCertificateRequest off,
// KubeletServiceAccountTokenForCredentialProviders on). svcplane serves no
// PersistentVolumes, VolumeAttachments, ResourceSlices or
// PodCertificateRequests, so the Graph has no edges from them: requests for
// them are decided as upstream decides them with none of those objects.
//
// The Graph is fed by the server's informer of pods kept as PodRecords
// (PodRecordInformer): a pod's identity, node and the objects it refers
// to, which is all the Graph, NodeRestriction and the service account
// token authenticator read of a pod.
//
// A decision costs a few map look-ups under a read lock; a pod event
// rewrites that pod's references under the write lock.
package node
