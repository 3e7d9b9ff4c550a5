package deployment

import (
	"context"
	"math"
	"sort"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
)

// active returns the ReplicaSets (nil skipped) that want pods.
func active(sets ...*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range sets {
		if rs != nil && rsReplicas(rs) > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// annotated reads an int32 annotation of rs.
func annotated(rs *appsv1.ReplicaSet, key string) (int32, bool) {
	v, err := strconv.ParseInt(rs.Annotations[key], 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(v), true
}

// scalingEvent reports whether d was resized since its active ReplicaSets
// were last sized: one of them records other desired replicas than d wants.
func scalingEvent(d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) bool {
	for _, rs := range active(append([]*appsv1.ReplicaSet{newRS}, old...)...) {
		if desired, ok := annotated(rs, DesiredReplicasAnnotation); ok && desired != replicas(d) {
			return true
		}
	}
	return false
}

// saturated: the new ReplicaSet runs every replica d wants, all available.
func saturated(d *appsv1.Deployment, newRS *appsv1.ReplicaSet) bool {
	if newRS == nil {
		return false
	}
	desired, ok := annotated(newRS, DesiredReplicasAnnotation)
	return ok && desired == replicas(d) && rsReplicas(newRS) == replicas(d) && newRS.Status.AvailableReplicas == replicas(d)
}

// resize applies a change of d's replicas. With one active ReplicaSet (or
// none: the newest) it takes the whole count; a saturated new ReplicaSet
// leaves the old ones at 0; otherwise, mid-rollout, the change is shared
// among the active ReplicaSets in proportion to their size (upstream's
// proportional scaling), so a resize never restarts the rollout.
func (c *Controller) resize(ctx context.Context, d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) error {
	if rs := activeOrLatest(newRS, old); rs != nil {
		return c.scale(ctx, rs, replicas(d), d)
	}
	if saturated(d, newRS) {
		for _, rs := range active(old...) {
			if err := c.scale(ctx, rs, 0, d); err != nil {
				return err
			}
		}
		return nil
	}
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		return nil
	}
	sets := active(append(append([]*appsv1.ReplicaSet{}, old...), newRS)...)
	sizes := proportions(d, sets)
	for _, rs := range sets {
		if err := c.scale(ctx, rs, sizes[rs], d); err != nil {
			return err
		}
	}
	return nil
}

// activeOrLatest returns the only active ReplicaSet; with none active, the
// new one or else the newest old one; with several active, nil.
func activeOrLatest(newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	switch act := active(append([]*appsv1.ReplicaSet{newRS}, old...)...); len(act) {
	case 1:
		return act[0]
	case 0:
		if newRS != nil {
			return newRS
		}
		var latest *appsv1.ReplicaSet
		for _, rs := range old {
			if latest == nil || latest.CreationTimestamp.Before(&rs.CreationTimestamp) {
				latest = rs
			}
		}
		return latest
	}
	return nil
}

// proportions computes each active ReplicaSet's size after d's resize:
// every set grows or shrinks by its share of the change (its size scaled
// from the max-replicas it was sized for to d's new maximum), larger sets
// first, and the rounding leftover goes to the first.
func proportions(d *appsv1.Deployment, sets []*appsv1.ReplicaSet) map[*appsv1.ReplicaSet]int32 {
	var total int32
	for _, rs := range sets {
		total += rsReplicas(rs)
	}
	allowed := int32(0)
	if replicas(d) > 0 {
		allowed = replicas(d) + maxSurge(d)
	}
	toAdd := allowed - total
	sort.SliceStable(sets, func(i, j int) bool {
		a, b := sets[i], sets[j]
		if rsReplicas(a) != rsReplicas(b) {
			return rsReplicas(a) > rsReplicas(b)
		}
		if toAdd > 0 { // scaling up: newer first
			return b.CreationTimestamp.Before(&a.CreationTimestamp)
		}
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	})
	sizes := map[*appsv1.ReplicaSet]int32{}
	var added int32
	for _, rs := range sets {
		share := proportion(d, rs, toAdd, added)
		sizes[rs] = rsReplicas(rs) + share
		added += share
	}
	if len(sets) > 0 && toAdd != 0 {
		sizes[sets[0]] = max(sizes[sets[0]]+toAdd-added, 0)
	}
	return sizes
}

// proportion is rs's share of toAdd, of which added is already handed out.
func proportion(d *appsv1.Deployment, rs *appsv1.ReplicaSet, toAdd, added int32) int32 {
	if rsReplicas(rs) == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	left := toAdd - added
	frac := fraction(d, rs)
	if toAdd > 0 {
		return min(frac, left)
	}
	return max(frac, left)
}

// fraction is how much rs would change if scaled from the maximum size
// the Deployment had when rs was last sized to the maximum it has now.
func fraction(d *appsv1.Deployment, rs *appsv1.ReplicaSet) int32 {
	if replicas(d) == 0 {
		return -rsReplicas(rs)
	}
	before, ok := annotated(rs, MaxReplicasAnnotation)
	if !ok || before == 0 {
		if before = d.Status.Replicas; before == 0 {
			return 0
		}
	}
	now := replicas(d) + maxSurge(d)
	size := float64(rsReplicas(rs)) * float64(now) / float64(before)
	return int32(math.Round(size)) - rsReplicas(rs)
}
