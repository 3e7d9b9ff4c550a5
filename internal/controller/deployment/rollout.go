package deployment

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// splitNewOld returns the ReplicaSet running d's current template (oldest
// if several) and the others.
func splitNewOld(d *appsv1.Deployment, sets []*appsv1.ReplicaSet) (*appsv1.ReplicaSet, []*appsv1.ReplicaSet) {
	sort.Slice(sets, func(i, j int) bool { return sets[i].CreationTimestamp.Before(&sets[j].CreationTimestamp) })
	var newRS *appsv1.ReplicaSet
	var old []*appsv1.ReplicaSet
	for _, rs := range sets {
		if newRS == nil && sameTemplate(&rs.Spec.Template, &d.Spec.Template) {
			newRS = rs
		} else {
			old = append(old, rs)
		}
	}
	return newRS, old
}

func revisionOf(rs *appsv1.ReplicaSet) int64 {
	v, _ := strconv.ParseInt(rs.Annotations[RevisionAnnotation], 10, 64)
	return v
}

func maxRevision(sets []*appsv1.ReplicaSet) int64 {
	var m int64
	for _, rs := range sets {
		m = max(m, revisionOf(rs))
	}
	return m
}

// createNewRS creates the ReplicaSet of d's template with the next revision.
func (c *Controller) createNewRS(ctx context.Context, d *appsv1.Deployment, owned []*appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	hash := TemplateHash(&d.Spec.Template, d.Status.CollisionCount)
	tmpl := *d.Spec.Template.DeepCopy()
	if tmpl.Labels == nil {
		tmpl.Labels = map[string]string{}
	}
	tmpl.Labels[HashLabel] = hash
	sel := d.Spec.Selector.DeepCopy()
	if sel.MatchLabels == nil {
		sel.MatchLabels = map[string]string{}
	}
	sel.MatchLabels[HashLabel] = hash
	initial := initialReplicas(d, owned)
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: ReplicaSetName(d.Name, hash), Namespace: d.Namespace, Labels: tmpl.Labels,
			OwnerReferences: []metav1.OwnerReference{controllerRef(d)},
			Annotations: map[string]string{RevisionAnnotation: strconv.FormatInt(maxRevision(owned)+1, 10),
				DesiredReplicasAnnotation: strconv.Itoa(int(replicas(d))),
				MaxReplicasAnnotation:     strconv.Itoa(int(replicas(d) + maxSurge(d)))}},
		Spec: appsv1.ReplicaSetSpec{Replicas: &initial, MinReadySeconds: d.Spec.MinReadySeconds, Selector: sel, Template: tmpl},
	}
	created, err := c.client.AppsV1().ReplicaSets(d.Namespace).Create(ctx, rs, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		// Ours already (an earlier sync created it and this controller's
		// cache has not seen it yet), as upstream checks: controlled by d
		// with d's template, it is the new ReplicaSet, not a collision.
		if cur, gerr := c.client.AppsV1().ReplicaSets(d.Namespace).Get(ctx, rs.Name, metav1.GetOptions{}); gerr == nil {
			if ref := metav1.GetControllerOfNoCopy(cur); ref != nil && ref.UID == d.UID && sameTemplate(&cur.Spec.Template, &d.Spec.Template) {
				return cur, nil
			}
		}
		// A ReplicaSet of that name with another template: bump the
		// collision count so the next hash differs.
		n := int32(1)
		if d.Status.CollisionCount != nil {
			n = *d.Status.CollisionCount + 1
		}
		d.Status.CollisionCount = &n
		_, uerr := c.client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
		if uerr != nil {
			return nil, uerr
		}
		return nil, fmt.Errorf("hash collision for %s; retrying with collisionCount %d", rs.Name, n)
	}
	return created, err
}

// initialReplicas is the new ReplicaSet's size at creation, as upstream's
// NewRSNewReplicas: under RollingUpdate as many as maxSurge leaves room
// for beside the old ReplicaSets (at most replicas); under Recreate all
// replicas once no old pod is left, else none (upstream creates it only
// then).
func initialReplicas(d *appsv1.Deployment, old []*appsv1.ReplicaSet) int32 {
	var current, running int32
	for _, rs := range old {
		current += rsReplicas(rs)
		running += rs.Status.Replicas
	}
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		if current > 0 || running > 0 {
			return 0
		}
		return replicas(d)
	}
	room := replicas(d) + maxSurge(d) - current
	if room <= 0 {
		return 0
	}
	return min(room, replicas(d))
}

// stampRevision makes the current ReplicaSet carry the newest revision (a
// rollback to an old template moves its revision forward) and the
// Deployment carry it too.
func (c *Controller) stampRevision(ctx context.Context, d *appsv1.Deployment, newRS *appsv1.ReplicaSet, owned []*appsv1.ReplicaSet) error {
	var others []*appsv1.ReplicaSet
	for _, rs := range owned {
		if rs.UID != newRS.UID {
			others = append(others, rs)
		}
	}
	if maxRev := maxRevision(others); revisionOf(newRS) <= maxRev {
		rs := newRS.DeepCopy()
		if rs.Annotations == nil {
			rs.Annotations = map[string]string{}
		}
		rs.Annotations[RevisionAnnotation] = strconv.FormatInt(maxRev+1, 10)
		updated, err := c.client.AppsV1().ReplicaSets(rs.Namespace).Update(ctx, rs, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		*newRS = *updated
	}
	return nil
}

// scale sets rs's replicas (and the desired/max annotations).
func (c *Controller) scale(ctx context.Context, rs *appsv1.ReplicaSet, n int32, d *appsv1.Deployment) error {
	desired, maxR := strconv.Itoa(int(replicas(d))), strconv.Itoa(int(replicas(d)+maxSurge(d)))
	if rsReplicas(rs) == n && rs.Annotations[DesiredReplicasAnnotation] == desired && rs.Annotations[MaxReplicasAnnotation] == maxR {
		return nil
	}
	cp := rs.DeepCopy()
	cp.Spec.Replicas = &n
	if cp.Annotations == nil {
		cp.Annotations = map[string]string{}
	}
	cp.Annotations[DesiredReplicasAnnotation], cp.Annotations[MaxReplicasAnnotation] = desired, maxR
	updated, err := c.client.AppsV1().ReplicaSets(rs.Namespace).Update(ctx, cp, metav1.UpdateOptions{})
	if err == nil {
		*rs = *updated
	}
	return err
}

func maxSurge(d *appsv1.Deployment) int32 {
	s, _ := surgeAndUnavailable(d)
	return s
}

// surgeAndUnavailable resolves maxSurge (rounded up) and maxUnavailable
// (rounded down) against replicas; both 0 means unavailable 1.
func surgeAndUnavailable(d *appsv1.Deployment) (int32, int32) {
	ru := d.Spec.Strategy.RollingUpdate
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType || ru == nil {
		return 0, 0
	}
	n := int(replicas(d))
	surge, _ := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(ru.MaxSurge, intstr.FromString("25%")), n, true)
	unavail, _ := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(ru.MaxUnavailable, intstr.FromString("25%")), n, false)
	if surge == 0 && unavail == 0 {
		unavail = 1
	}
	return int32(surge), int32(min(unavail, n))
}

// rollingUpdate scales the new ReplicaSet up within maxSurge and the old
// ones down within maxUnavailable.
func (c *Controller) rollingUpdate(ctx context.Context, d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) error {
	want := replicas(d)
	surge, unavail := surgeAndUnavailable(d)
	total := rsReplicas(newRS)
	for _, rs := range old {
		total += rsReplicas(rs)
	}
	switch cur := rsReplicas(newRS); {
	case cur > want:
		if err := c.scale(ctx, newRS, want, d); err != nil {
			return err
		}
	case cur < want && total < want+surge:
		if err := c.scale(ctx, newRS, cur+min(want+surge-total, want-cur), d); err != nil {
			return err
		}
	default:
		if err := c.scale(ctx, newRS, cur, d); err != nil {
			return err
		}
	}
	return c.scaleDownOld(ctx, d, newRS, old, want-unavail)
}

// scaleDownOld scales the old ReplicaSets down (oldest first) as far as
// keeping minAvailable pods available allows: unavailable old pods go
// first, then available ones, as upstream.
func (c *Controller) scaleDownOld(ctx context.Context, d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet, minAvailable int32) error {
	all, available := rsReplicas(newRS), newRS.Status.AvailableReplicas
	for _, rs := range old {
		all += rsReplicas(rs)
		available += rs.Status.AvailableReplicas
	}
	budget := all - minAvailable - (rsReplicas(newRS) - newRS.Status.AvailableReplicas)
	if budget <= 0 {
		return nil
	}
	target := map[*appsv1.ReplicaSet]int32{}
	for _, rs := range old { // unhealthy first
		unhealthy := max(rsReplicas(rs)-rs.Status.AvailableReplicas, 0)
		down := min(unhealthy, budget)
		target[rs] = rsReplicas(rs) - down
		budget -= down
	}
	healthyBudget := min(available-minAvailable, budget)
	for _, rs := range old {
		down := max(min(target[rs], healthyBudget), 0)
		target[rs] -= down
		healthyBudget -= down
	}
	for _, rs := range old {
		if target[rs] != rsReplicas(rs) {
			if err := c.scale(ctx, rs, target[rs], d); err != nil {
				return err
			}
		}
	}
	return nil
}

// recreate scales every old ReplicaSet to 0 and, once their pods are gone,
// the new one up.
func (c *Controller) recreate(ctx context.Context, d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) error {
	running := int32(0)
	for _, rs := range old {
		if err := c.scale(ctx, rs, 0, d); err != nil {
			return err
		}
		running += rs.Status.Replicas
	}
	if running > 0 {
		return c.scale(ctx, newRS, rsReplicas(newRS), d)
	}
	return c.scale(ctx, newRS, replicas(d), d)
}

// cleanup deletes scaled-down old ReplicaSets beyond revisionHistoryLimit
// (oldest revisions first).
func (c *Controller) cleanup(ctx context.Context, d *appsv1.Deployment, old []*appsv1.ReplicaSet) error {
	limit := int32(10)
	if d.Spec.RevisionHistoryLimit != nil {
		limit = *d.Spec.RevisionHistoryLimit
	}
	var idle []*appsv1.ReplicaSet
	for _, rs := range old {
		if rsReplicas(rs) == 0 && rs.Status.Replicas == 0 && rs.DeletionTimestamp == nil {
			idle = append(idle, rs)
		}
	}
	sort.Slice(idle, func(i, j int) bool { return revisionOf(idle[i]) < revisionOf(idle[j]) })
	for i := 0; i < len(idle)-int(limit); i++ {
		err := c.client.AppsV1().ReplicaSets(d.Namespace).Delete(ctx, idle[i].Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}
