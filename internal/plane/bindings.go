package plane

import (
	"context"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	genericapiserver "k8s.io/apiserver/pkg/server"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/apiserver"
	"github.com/svcplane/svcplane/internal/auth/node"
)

// clusterRoleBinding is a ClusterRoleBinding svcplane keeps for one of its
// own identities: one subject bound to one ClusterRole.
// hook names its post-start hook.
type clusterRoleBinding struct {
	hook, name, role, subjectKind, subject string
}

// The bindings the plane keeps.
var (
	// nodeSimulatorBinding gives the node simulator's group
	// (apiserver.GroupNodeSimulators) upstream's system:node ClusterRole.
	nodeSimulatorBinding = clusterRoleBinding{"svcplane-node-simulator-binding", NodeSimulatorBinding, node.NodeRole, rbacv1.GroupKind, apiserver.GroupNodeSimulators}
	// kubeletClientBinding binds the API server's kubelet client identity
	// to system:kubelet-api-admin, as kubeadm does.
	kubeletClientBinding = clusterRoleBinding{"svcplane-apiserver-kubelet-client-binding", apiserver.KubeletClientBinding, apiserver.RoleKubeletAPIAdmin, rbacv1.UserKind, apiserver.UserKubeletClient}
)

// NodeSimulatorBinding is the ClusterRoleBinding that gives the node
// simulator's group (apiserver.GroupNodeSimulators) upstream's
// system:node ClusterRole.
const NodeSimulatorBinding = apiserver.GroupNodeSimulators

// apply writes the binding with server-side apply, so an edited binding is
// put back at each start.
func (b clusterRoleBinding) apply(ctx context.Context, client kubernetes.Interface) error {
	ac := rbacv1ac.ClusterRoleBinding(b.name).
		WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName(b.role)).
		WithSubjects(rbacv1ac.Subject().WithAPIGroup(rbacv1.GroupName).WithKind(b.subjectKind).WithName(b.subject))
	_, err := client.RbacV1().ClusterRoleBindings().Apply(ctx, ac, metav1.ApplyOptions{FieldManager: "svcplane", Force: true})
	return err
}

// addBinding applies b once the server serves, retrying for a while; it
// does not hold up /readyz.
func (p *Plane) addBinding(b clusterRoleBinding) error {
	return p.Server.AddPostStartHook(b.hook, func(hc genericapiserver.PostStartHookContext) error {
		client, err := kubernetes.NewForConfig(hc.LoopbackClientConfig)
		if err != nil {
			return err
		}
		p.loops.start(hc, func(ctx context.Context) {
			var last error
			if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
				last = b.apply(ctx, client)
				return last == nil, nil
			}); err != nil && ctx.Err() == nil {
				klog.ErrorS(last, "Unable to apply a ClusterRoleBinding", "clusterrolebinding", b.name, "clusterrole", b.role, b.subjectKind, b.subject)
			}
		})
		return nil
	})
}
