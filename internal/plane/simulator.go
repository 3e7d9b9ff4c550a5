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

// NodeSimulatorBinding is the ClusterRoleBinding that gives the node
// simulator's group (apiserver.GroupNodeSimulators) upstream's
// system:node ClusterRole.
const NodeSimulatorBinding = apiserver.GroupNodeSimulators

// applyNodeSimulatorBinding binds the node simulator's group to the
// system:node ClusterRole (server-side apply, so an edited binding is
// put back at each start).
func applyNodeSimulatorBinding(ctx context.Context, client kubernetes.Interface) error {
	b := rbacv1ac.ClusterRoleBinding(NodeSimulatorBinding).
		WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName(node.NodeRole)).
		WithSubjects(rbacv1ac.Subject().WithAPIGroup(rbacv1.GroupName).WithKind(rbacv1.GroupKind).WithName(apiserver.GroupNodeSimulators))
	_, err := client.RbacV1().ClusterRoleBindings().Apply(ctx, b, metav1.ApplyOptions{FieldManager: "svcplane", Force: true})
	return err
}

// addNodeSimulatorBinding applies the binding once the server serves,
// retrying for a while; it does not hold up /readyz.
func (p *Plane) addNodeSimulatorBinding() error {
	return p.Server.AddPostStartHook("svcplane-node-simulator-binding", func(hc genericapiserver.PostStartHookContext) error {
		client, err := kubernetes.NewForConfig(hc.LoopbackClientConfig)
		if err != nil {
			return err
		}
		p.loops.start(hc, func(ctx context.Context) {
			var last error
			if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
				last = applyNodeSimulatorBinding(ctx, client)
				return last == nil, nil
			}); err != nil && ctx.Err() == nil {
				klog.ErrorS(last, "Unable to bind the node simulator's group to system:node", "clusterrolebinding", NodeSimulatorBinding)
			}
		})
		return nil
	})
}
