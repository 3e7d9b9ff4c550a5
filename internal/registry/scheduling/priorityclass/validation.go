package priorityclass

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	// HighestUserDefinablePriority is the highest value a PriorityClass
	// without the system prefix may have.
	HighestUserDefinablePriority = int32(1000000000)
	// SystemCriticalPriority is the value of system-cluster-critical.
	SystemCriticalPriority = 2 * HighestUserDefinablePriority
	// SystemPrefix marks the names reserved for the system classes.
	SystemPrefix = "system-"
)

// Validate checks a new PriorityClass as upstream's ValidatePriorityClass
// (beyond the object meta, which the generic strategy checks).
func Validate(pc *schedulingv1.PriorityClass) field.ErrorList {
	var errs field.ErrorList
	if strings.HasPrefix(pc.Name, SystemPrefix) {
		if err := knownSystemClass(pc.Name, pc.Value, pc.GlobalDefault); err != nil {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"),
				"priority class names with '"+SystemPrefix+"' prefix are reserved for system use only. error: "+err.Error()))
		}
	} else if pc.Value > HighestUserDefinablePriority {
		errs = append(errs, field.Forbidden(field.NewPath("value"),
			fmt.Sprintf("maximum allowed value of a user defined priority is %v", HighestUserDefinablePriority)))
	}
	if p := pc.PreemptionPolicy; p != nil {
		fld := field.NewPath("preemptionPolicy")
		switch *p {
		case corev1.PreemptLowerPriority, corev1.PreemptNever:
		case "":
			errs = append(errs, field.Required(fld, ""))
		default:
			errs = append(errs, field.NotSupported(fld, p, []corev1.PreemptionPolicy{corev1.PreemptLowerPriority, corev1.PreemptNever}))
		}
	}
	return errs
}

// ValidateUpdate checks an update as upstream's
// ValidatePriorityClassUpdate: value and preemptionPolicy are immutable.
func ValidateUpdate(pc, old *schedulingv1.PriorityClass) field.ErrorList {
	var errs field.ErrorList
	if pc.Value != old.Value {
		errs = append(errs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
	}
	return append(errs, apivalidation.ValidateImmutableField(pc.PreemptionPolicy, old.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
}

// knownSystemClass is upstream's IsKnownSystemPriorityClass: nil when name,
// value and globalDefault are exactly those of a system class.
func knownSystemClass(name string, value int32, globalDefault bool) error {
	for _, s := range System() {
		if s.Name != name {
			continue
		}
		if s.Value != value {
			return fmt.Errorf("value of %v PriorityClass must be %v", s.Name, s.Value)
		}
		if s.GlobalDefault != globalDefault {
			return fmt.Errorf("globalDefault of %v PriorityClass must be %v", s.Name, s.GlobalDefault)
		}
		return nil
	}
	return fmt.Errorf("%v is not a known system priority class", name)
}
