package replicaset

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// claimPods returns the active pods rs controls after adopting matching
// orphans and releasing owned pods that no longer match.
func (c *Controller) claimPods(ctx context.Context, rs *appsv1.ReplicaSet, selector labels.Selector, all []*corev1.Pod) ([]*corev1.Pod, error) {
	var out []*corev1.Pod
	for _, pod := range all {
		ref := metav1.GetControllerOfNoCopy(pod)
		matches := !selector.Empty() && selector.Matches(labels.Set(pod.Labels))
		switch {
		case ref != nil && ref.UID != rs.UID:
			continue // another controller's
		case ref != nil && matches:
			if active(pod) {
				out = append(out, pod)
			}
		case ref != nil: // ours, no longer matching: release
			if err := c.patchOwner(ctx, pod, fmt.Sprintf(`{"metadata":{"ownerReferences":[{"$patch":"delete","uid":%q}],"uid":%q}}`, rs.UID, pod.UID)); err != nil {
				return nil, err
			}
		case matches && active(pod) && rs.DeletionTimestamp == nil:
			ownerRef, _ := json.Marshal(c.controllerRef(rs))
			patch := fmt.Sprintf(`{"metadata":{"ownerReferences":[%s],"uid":%q}}`, ownerRef, pod.UID)
			if err := c.patchOwner(ctx, pod, patch); err != nil {
				return nil, err
			}
			out = append(out, pod)
		}
	}
	return out, nil
}

func (c *Controller) patchOwner(ctx context.Context, pod *corev1.Pod, patch string) error {
	_, err := c.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsInvalid(err) {
		return nil // gone, or its UID changed (a new pod with the name)
	}
	return err
}

func (c *Controller) controllerRef(rs *appsv1.ReplicaSet) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: c.kind.GVK.GroupVersion().String(), Kind: c.kind.GVK.Kind, Name: rs.Name, UID: rs.UID,
		Controller: &yes, BlockOwnerDeletion: &yes}
}

// manageReplicas creates or deletes pods to reach spec.replicas.
// all is every pod of rs's namespace (for ranking by co-located pods).
func (c *Controller) manageReplicas(ctx context.Context, rs *appsv1.ReplicaSet, key string, pods, all []*corev1.Pod) error {
	diff := len(pods) - replicasOf(rs)
	switch {
	case diff < 0:
		n := min(-diff, BurstReplicas)
		c.expectations.expect(key, n, 0)
		made, err := slowStart(n, func() error { return c.createPod(ctx, rs) })
		if skipped := n - made; skipped > 0 {
			c.expectations.observe(key, skipped, 0)
		}
		return err
	case diff > 0:
		n := min(diff, BurstReplicas)
		sets, err := c.kind.List(rs.Namespace)
		if err != nil {
			return err
		}
		victims := PodsToDelete(append([]*corev1.Pod(nil), pods...), relatedPods(rs, sets, all), n, metav1.NewTime(c.clock.Now()))
		c.expectations.expect(key, 0, n)
		var firstErr error
		for _, p := range victims {
			err := c.client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{})
			if err != nil {
				c.expectations.observe(key, 0, 1)
				if !apierrors.IsNotFound(err) && firstErr == nil {
					firstErr = err
				}
			}
		}
		return firstErr
	}
	return nil
}

func (c *Controller) createPod(ctx context.Context, rs *appsv1.ReplicaSet) error {
	t := rs.Spec.Template
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: rs.Name + "-", Labels: t.Labels, Annotations: t.Annotations,
			OwnerReferences: []metav1.OwnerReference{c.controllerRef(rs)}},
		Spec: *t.Spec.DeepCopy(),
	}
	_, err := c.client.CoreV1().Pods(rs.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
		return nil
	}
	return err
}

// slowStart calls fn count times in batches of 1, 2, 4, … (each batch in
// parallel), stopping after the first batch with an error; it returns how
// many calls were made.
func slowStart(count int, fn func() error) (int, error) {
	made := 0
	for batch := 1; made < count; batch *= 2 {
		batch = min(batch, count-made)
		errs := make(chan error, batch)
		var wg sync.WaitGroup
		for i := 0; i < batch; i++ {
			wg.Add(1)
			go func() { defer wg.Done(); errs <- fn() }()
		}
		wg.Wait()
		close(errs)
		made += batch
		for err := range errs {
			if err != nil {
				return made, err
			}
		}
	}
	return made, nil
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
