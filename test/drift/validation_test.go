package drift

import (
	"context"
	"reflect"
	"sort"
	"testing"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// toInternal converts theirs (defaulted by upstream's scheme) into
// internal, upstream's internal type, for upstream's validation.
func toInternal(t *testing.T, theirs, internal runtime.Object) {
	t.Helper()
	if err := legacyscheme.Scheme.Convert(theirs, internal, nil); err != nil {
		t.Fatal(err)
	}
}

// sameErrors checks that ours (defaulted by def) fails our checks as
// upstream's did: the generic store's object-meta check (it runs before
// the kind's Validate, rest.BeforeCreate; with def's name rule and scope),
// then def.Validate, against upstream's errors, by path and type.
func sameErrors(t *testing.T, def *resource.Definition, ours runtime.Object, upstream field.ErrorList) {
	t.Helper()
	compareErrors(t, ourErrors(t, def, ours), upstream)
}

// sameUpdateErrors is sameErrors for an update of old to ours: the object
// meta checks (create's and update's), then def.ValidateUpdate.
func sameUpdateErrors(t *testing.T, def *resource.Definition, ours, old runtime.Object, upstream field.ErrorList) {
	t.Helper()
	compareErrors(t, ourUpdateErrors(t, def, ours, old), upstream)
}

// ourErrors are the errors our server gives creating obj.
func ourErrors(t *testing.T, def *resource.Definition, obj runtime.Object) field.ErrorList {
	t.Helper()
	return append(validateMeta(t, def, obj), def.Validate(context.Background(), obj)...)
}

// ourUpdateErrors are the errors our server gives updating old to obj.
func ourUpdateErrors(t *testing.T, def *resource.Definition, obj, old runtime.Object) field.ErrorList {
	t.Helper()
	errs := validateMeta(t, def, obj)
	errs = append(errs, apivalidation.ValidateObjectMetaAccessorUpdate(objectMeta(t, obj), objectMeta(t, old), field.NewPath("metadata"))...)
	validate := def.ValidateUpdate
	if validate == nil {
		validate = func(ctx context.Context, obj, _ runtime.Object) field.ErrorList { return def.Validate(ctx, obj) }
	}
	return append(errs, validate(context.Background(), obj, old)...)
}

func validateMeta(t *testing.T, def *resource.Definition, obj runtime.Object) field.ErrorList {
	t.Helper()
	name := def.NameValidation
	if name == nil {
		name = apivalidation.NameIsDNSSubdomain
	}
	return apivalidation.ValidateObjectMetaAccessor(objectMeta(t, obj), def.Namespaced, name, field.NewPath("metadata"))
}

func objectMeta(t *testing.T, obj runtime.Object) metav1.Object {
	t.Helper()
	meta, ok := obj.(metav1.Object)
	if !ok {
		t.Fatalf("%T has no object meta", obj)
	}
	return meta
}

func compareErrors(t *testing.T, ours, upstream field.ErrorList) {
	t.Helper()
	got, want := paths(ours), paths(upstream)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("validation:\n ours     %v\n upstream %v", got, want)
	}
}

// paths reduces errors to "path: type" (the detail wording of pod spec
// checks is the pod package's business).
func paths(errs field.ErrorList) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Field+": "+string(e.Type))
	}
	sort.Strings(out)
	return out
}
