package namespace

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// conditionTypes are the namespace conditions the controller keeps, in
// upstream's order.
var conditionTypes = []corev1.NamespaceConditionType{
	corev1.NamespaceDeletionDiscoveryFailure,
	corev1.NamespaceDeletionGVParsingFailure,
	corev1.NamespaceDeletionContentFailure,
	corev1.NamespaceContentRemaining,
	corev1.NamespaceFinalizersRemaining,
}

// okConditions are the False ("nothing wrong") variants, upstream's words.
var okConditions = map[corev1.NamespaceConditionType][2]string{
	corev1.NamespaceDeletionDiscoveryFailure: {"ResourcesDiscovered", "All resources successfully discovered"},
	corev1.NamespaceDeletionGVParsingFailure: {"ParsedGroupVersions", "All legacy kube types successfully parsed"},
	corev1.NamespaceDeletionContentFailure:   {"ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
	corev1.NamespaceContentRemaining:         {"ContentRemoved", "All content successfully removed"},
	corev1.NamespaceFinalizersRemaining:      {"ContentRemoved", "All content successfully removed"},
}

// report gathers what one pass over a terminating namespace found.
type report struct {
	discoveryErr error
	parseErrs    []error
	deleteErrs   []error
	remaining    map[schema.GroupVersionResource]int
	finalizers   map[string]int
}

func newReport() *report {
	return &report{remaining: map[schema.GroupVersionResource]int{}, finalizers: map[string]int{}}
}

// clean reports whether the namespace may be finalized.
func (r *report) clean() bool {
	return r.discoveryErr == nil && len(r.parseErrs) == 0 && len(r.deleteErrs) == 0 && r.total() == 0
}

func (r *report) total() int {
	n := 0
	for _, v := range r.remaining {
		n += v
	}
	return n
}

// conditions renders the report as the True conditions it warrants.
func (r *report) conditions() []corev1.NamespaceCondition {
	var out []corev1.NamespaceCondition
	add := func(t corev1.NamespaceConditionType, reason, msg string) {
		out = append(out, corev1.NamespaceCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: msg})
	}
	if err := r.discoveryErr; err != nil {
		msg := err.Error()
		if derr, ok := err.(*discovery.ErrGroupDiscoveryFailed); ok {
			msg = fmt.Sprintf("Discovery failed for some groups, %d failing: %v", len(derr.Groups), err)
		}
		add(corev1.NamespaceDeletionDiscoveryFailure, "DiscoveryFailed", msg)
	}
	if len(r.parseErrs) > 0 {
		add(corev1.NamespaceDeletionGVParsingFailure, "GroupVersionParsingFailed", joinErrs(r.parseErrs))
	}
	if len(r.deleteErrs) > 0 {
		add(corev1.NamespaceDeletionContentFailure, "ContentDeletionFailed",
			fmt.Sprintf("Failed to delete all resource types, %d remaining: %v", len(r.deleteErrs), joinErrs(r.deleteErrs)))
	}
	var left []string
	for gvr, n := range r.remaining {
		if n > 0 {
			left = append(left, fmt.Sprintf("%s.%s has %d resource instances", gvr.Resource, gvr.Group, n))
		}
	}
	if len(left) > 0 {
		sort.Strings(left)
		add(corev1.NamespaceContentRemaining, "SomeResourcesRemain", "Some resources are remaining: "+strings.Join(left, ", "))
	}
	var fins []string
	for f, n := range r.finalizers {
		fins = append(fins, fmt.Sprintf("%s in %d resource instances", f, n))
	}
	if len(fins) > 0 {
		sort.Strings(fins)
		add(corev1.NamespaceFinalizersRemaining, "SomeFinalizerRemain", "Some finalizers are remaining: "+strings.Join(fins, ", "))
	}
	return out
}

func joinErrs(errs []error) string {
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	sort.Strings(msgs)
	return strings.Join(msgs, ", ")
}

// applyConditions sets every kept condition type on st: the report's True
// ones, the False "ok" variant for the rest. It reports a change; the
// transition time moves only when a status flips.
func applyConditions(st *corev1.NamespaceStatus, found []corev1.NamespaceCondition, now metav1.Time) bool {
	changed := false
	for _, t := range conditionTypes {
		want := find(found, t)
		if want == nil {
			ok := okConditions[t]
			want = &corev1.NamespaceCondition{Type: t, Status: corev1.ConditionFalse, Reason: ok[0], Message: ok[1]}
		}
		cur := find(st.Conditions, t)
		switch {
		case cur == nil:
			want.LastTransitionTime = now
			st.Conditions = append(st.Conditions, *want)
			changed = true
		case cur.Status != want.Status || cur.Reason != want.Reason || cur.Message != want.Message:
			if cur.Status != want.Status {
				cur.LastTransitionTime = now
			}
			cur.Status, cur.Reason, cur.Message = want.Status, want.Reason, want.Message
			changed = true
		}
	}
	return changed
}

func find(conds []corev1.NamespaceCondition, t corev1.NamespaceConditionType) *corev1.NamespaceCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}
