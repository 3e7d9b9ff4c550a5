package main

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateErr is errs as kube-proxy reports them, or nil.
func validateErr(errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("failed validate: %w", errs.ToAggregate())
}
