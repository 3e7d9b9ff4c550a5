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
// the kind's Validate, rest.BeforeCreate), then def.Validate, against
// upstream's errors, by path and type.
func sameErrors(t *testing.T, def *resource.Definition, ours runtime.Object, upstream field.ErrorList) {
	t.Helper()
	meta, ok := ours.(metav1.Object)
	if !ok {
		t.Fatalf("%T has no object meta", ours)
	}
	errs := apivalidation.ValidateObjectMetaAccessor(meta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	got, want := paths(append(errs, def.Validate(context.Background(), ours)...)), paths(upstream)
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
