package systempriorityclasses

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/registry/scheduling/priorityclass"
)

// HookName is kube-apiserver's name of the post-start hook.
const HookName = "scheduling/bootstrap-system-priority-classes"

// Sync creates every missing system priority class once; the caller
// retries on error (kube-apiserver retries for 30 s, then fails).
func Sync(ctx context.Context, client kubernetes.Interface) error {
	pcs := client.SchedulingV1().PriorityClasses()
	for _, pc := range priorityclass.System() {
		_, err := pcs.Get(ctx, pc.Name, metav1.GetOptions{})
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("get PriorityClass %s: %w", pc.Name, err)
		}
		if _, err := pcs.Create(ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create PriorityClass %s: %w", pc.Name, err)
		}
		klog.Infof("created PriorityClass %s with value %v", pc.Name, pc.Value)
	}
	return nil
}
