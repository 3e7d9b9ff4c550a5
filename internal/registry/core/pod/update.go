package pod

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// updatableFields are the spec fields a pod update may change (upstream's
// updatablePodSpecFields).
var updatableFields = []string{
	"`spec.containers[*].image`",
	"`spec.initContainers[*].image`",
	"`spec.activeDeadlineSeconds`",
	"`spec.tolerations` (only additions to existing tolerations)",
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
}

// validateUpdate is upstream's ValidatePodUpdate: the new pod as on create
// (but for the create-only rules), then what may change: images, a
// lower activeDeadlineSeconds, added tolerations, removed scheduling
// gates, nodeSelector additions of a gated pod. Anything else is refused
// with the spec's diff (rendered from the v1 type; upstream's renders its
// internal type).
func validateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	p, o := obj.(*corev1.Pod), old.(*corev1.Pod)
	spec := field.NewPath("spec")
	errs := validatePod(p)
	for _, cs := range []struct {
		name     string
		now, was []corev1.Container
	}{{"containers", p.Spec.Containers, o.Spec.Containers}, {"initContainers", p.Spec.InitContainers, o.Spec.InitContainers}} {
		cerrs, stop := validateContainerUpdates(cs.now, cs.was, spec.Child(cs.name))
		errs = append(errs, cerrs...)
		if stop {
			return errs
		}
	}
	derrs, stop := validateDeadlineUpdate(p.Spec.ActiveDeadlineSeconds, o.Spec.ActiveDeadlineSeconds, spec.Child("activeDeadlineSeconds"))
	if errs = append(errs, derrs...); stop {
		return errs
	}
	errs = append(errs, validateOnlyAddedTolerations(p.Spec.Tolerations, o.Spec.Tolerations, spec.Child("tolerations"))...)
	errs = append(errs, validateOnlyDeletedSchedulingGates(p.Spec.SchedulingGates, o.Spec.SchedulingGates, spec.Child("schedulingGates"))...)
	if apiequality.Semantic.DeepEqual(p.Spec, o.Spec) {
		return errs
	}
	munged := mungeUpdatable(&p.Spec, &o.Spec)
	if len(o.Spec.SchedulingGates) > 0 && !apiequality.Semantic.DeepEqual(munged.NodeSelector, o.Spec.NodeSelector) {
		for k, v := range o.Spec.NodeSelector {
			if w, ok := munged.NodeSelector[k]; !ok || v != w {
				errs = append(errs, field.Invalid(spec.Child("nodeSelector"), munged.NodeSelector, "only additions to spec.nodeSelector are allowed (no mutations or deletions)"))
				break
			}
		}
		munged.NodeSelector = o.Spec.NodeSelector
	}
	if !apiequality.Semantic.DeepEqual(munged, &o.Spec) {
		errs = append(errs, field.Forbidden(spec, fmt.Sprintf("pod updates may not change fields other than %s\n%v",
			strings.Join(updatableFields, ","), diff.Diff(resource.AsInternal(o.Spec), resource.AsInternal(*munged)))))
	}
	return errs
}

// mungeUpdatable returns the new spec with the fields an update may
// change taken from the old one.
func mungeUpdatable(s, old *corev1.PodSpec) *corev1.PodSpec {
	m := s.DeepCopy()
	for i := range m.Containers {
		m.Containers[i].Image = old.Containers[i].Image
	}
	for i := range m.InitContainers {
		m.InitContainers[i].Image = old.InitContainers[i].Image
	}
	m.ActiveDeadlineSeconds = old.ActiveDeadlineSeconds
	m.SchedulingGates = old.SchedulingGates
	m.Tolerations = old.Tolerations
	if g, og := m.TerminationGracePeriodSeconds, old.TerminationGracePeriodSeconds; og != nil && *og < 0 && g != nil && *g == 1 {
		m.TerminationGracePeriodSeconds = og
	}
	return m
}

// validateContainerUpdates: the same number of containers, each with an
// image; a mismatch stops the update's checks.
func validateContainerUpdates(now, was []corev1.Container, fld *field.Path) (field.ErrorList, bool) {
	if len(now) != len(was) {
		return field.ErrorList{field.Forbidden(fld, "pod updates may not add or remove containers")}, true
	}
	var errs field.ErrorList
	for i, c := range now {
		if c.Image == "" {
			errs = append(errs, field.Required(fld.Index(i).Child("image"), ""))
		}
		if len(strings.TrimSpace(c.Image)) != len(c.Image) {
			errs = append(errs, field.Invalid(fld.Index(i).Child("image"), c.Image, "must not have leading or trailing whitespace"))
		}
	}
	return errs, false
}

// validateDeadlineUpdate: activeDeadlineSeconds may be set, or lowered,
// never raised or removed; a bad value stops the update's checks.
func validateDeadlineUpdate(now, was *int64, fld *field.Path) (field.ErrorList, bool) {
	switch {
	case now == nil && was != nil:
		return field.ErrorList{field.Invalid(fld, now, "must not update from a positive integer to nil value")}, false
	case now == nil:
		return nil, false
	case *now < 0 || *now > math.MaxInt32:
		return field.ErrorList{field.Invalid(fld, *now, validation.InclusiveRangeError(0, math.MaxInt32))}, true
	case was != nil && *was < *now:
		return field.ErrorList{field.Invalid(fld, *now, "must be less than or equal to previous value")}, true
	}
	return nil, false
}

// validateOnlyAddedTolerations: existing tolerations stay (their
// tolerationSeconds may change); the new list is checked as on create.
func validateOnlyAddedTolerations(now, was []corev1.Toleration, fld *field.Path) field.ErrorList {
	for _, o := range was {
		found := false
		for _, n := range now {
			c := o
			c.TolerationSeconds = n.TolerationSeconds
			if reflect.DeepEqual(c, n) {
				found = true
				break
			}
		}
		if !found {
			return field.ErrorList{field.Forbidden(fld, "existing toleration can not be modified except its tolerationSeconds")}
		}
	}
	return validateTolerations(now, fld)
}

// validateOnlyDeletedSchedulingGates: an update may remove scheduling gates,
// never add one (upstream's message).
func validateOnlyDeletedSchedulingGates(gates, old []corev1.PodSchedulingGate, path *field.Path) field.ErrorList {
	had := map[string]bool{}
	for _, g := range old {
		had[g.Name] = true
	}
	var errs field.ErrorList
	for i, g := range gates {
		if !had[g.Name] {
			errs = append(errs, field.Forbidden(path.Index(i).Child("name"),
				fmt.Sprintf("only deletion is allowed, but found new scheduling gate '%s'", g.Name)))
		}
	}
	return errs
}
