package runtimeclass

import (
	"context"
	"fmt"

	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/core/node"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the runtimeclasses resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: nodev1.SchemeGroupVersion, Kind: "RuntimeClass",
		Resource: "runtimeclasses", Singular: "runtimeclass",
		New:     func() runtime.Object { return &nodev1.RuntimeClass{} },
		NewList: func() runtime.Object { return &nodev1.RuntimeClassList{} },
		// Upstream validates with apimachinery's object meta rules; an
		// update checks the new object, then the transition.
		MetaValidation: resource.MetaGeneric,
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return Validate(obj.(*nodev1.RuntimeClass))
		},
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			rc, o := obj.(*nodev1.RuntimeClass), old.(*nodev1.RuntimeClass)
			return append(Validate(rc), ValidateUpdate(rc, o)...)
		},
		Warnings: func(ctx context.Context, obj, old runtime.Object) []string {
			return warnings(obj.(*nodev1.RuntimeClass))
		},
		AllowCreateOnUpdate:         true,
		DisallowUnconditionalUpdate: true,
		Columns: []metav1.TableColumnDefinition{
			// Upstream describes the column with ObjectMeta's (missing)
			// "handler" doc: empty.
			resource.Column("Handler", "string", 0, ""),
			resource.AgeColumn,
		},
		Row: func(obj runtime.Object) []interface{} {
			return []interface{}{obj.(*nodev1.RuntimeClass).Handler, resource.AgeOf(obj)}
		},
	}
}

// warnings are upstream's GetWarningsForRuntimeClass: one per deprecated
// node label in scheduling.nodeSelector.
func warnings(rc *nodev1.RuntimeClass) []string {
	var out []string
	if rc.Scheduling == nil {
		return nil
	}
	for key := range rc.Scheduling.NodeSelector {
		if msg, ok := node.DeprecatedLabel(key); ok {
			out = append(out, fmt.Sprintf("%s: %s", field.NewPath("scheduling", "nodeSelector"), msg))
		}
	}
	return out
}
