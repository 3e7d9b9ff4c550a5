package csinode

import (
	"fmt"
	"strings"

	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

const nodeIDMaxLength = 256

// ValidateSpec checks a CSINode's drivers as upstream's
// validateCSINodeSpec.
func ValidateSpec(spec *storagev1.CSINodeSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, d := range spec.Drivers {
		errs = append(errs, validateDriver(d, names, fld.Child("drivers").Index(i))...)
	}
	return errs
}

func validateDriver(d storagev1.CSINodeDriver, names map[string]bool, fld *field.Path) field.ErrorList {
	errs := ValidateDriverName(d.Name, fld.Child("name"))
	switch {
	case d.NodeID == "":
		errs = append(errs, field.Required(fld.Child("nodeID"), d.NodeID))
	case len(d.NodeID) > nodeIDMaxLength:
		errs = append(errs, field.Invalid(fld.Child("nodeID"), d.NodeID, fmt.Sprintf("must be %d characters or less", nodeIDMaxLength)))
	}
	if a := d.Allocatable; a != nil && a.Count != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*a.Count), fld.Child("allocatable", "count"))...)
	}
	if names[d.Name] {
		errs = append(errs, field.Duplicate(fld.Child("name"), d.Name))
	}
	names[d.Name] = true
	keys := map[string]bool{}
	for _, key := range d.TopologyKeys {
		if key == "" {
			errs = append(errs, field.Required(fld, key))
		}
		if keys[key] {
			errs = append(errs, field.Duplicate(fld, key))
		}
		keys[key] = true
		for _, msg := range validation.IsQualifiedName(key) {
			errs = append(errs, field.Invalid(fld, key, msg))
		}
	}
	return errs
}

// ValidateDriverName checks a CSI driver name as upstream's core
// ValidateCSIDriverName: required, at most 63 characters, a DNS subdomain
// in lower case.
func ValidateDriverName(name string, fld *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fld, "")}
	}
	var errs field.ErrorList
	if len(name) > 63 {
		errs = append(errs, field.TooLong(fld, "", 63))
	}
	for _, msg := range validation.IsDNS1123Subdomain(strings.ToLower(name)) {
		errs = append(errs, field.Invalid(fld, name, msg))
	}
	return errs
}

// ValidateUpdate is upstream's ValidateCSINodeUpdate beyond the new
// object: a driver kept by name may change only its allocatable count
// (MutableCSINodeAllocatableCount, GA in 1.36).
func ValidateUpdate(n, old *storagev1.CSINode) field.ErrorList {
	var errs field.ErrorList
	for _, od := range old.Spec.Drivers {
		for _, nd := range n.Spec.Drivers {
			if od.Name != nd.Name {
				continue
			}
			o, c := od.DeepCopy(), nd.DeepCopy()
			o.Allocatable, c.Allocatable = nil, nil
			if !apiequality.Semantic.DeepEqual(c, o) {
				errs = append(errs, field.Invalid(field.NewPath("spec", "drivers"), resource.AsInternal(c), apivalidation.FieldImmutableErrorMsg))
			}
		}
	}
	return errs
}
