package resource

import (
	"context"
	"reflect"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// strategy implements the create, update and delete strategies of the main
// resource from a Definition.
type strategy struct {
	runtime.ObjectTyper
	names.NameGenerator
	def *Definition
}

func newStrategy(typer runtime.ObjectTyper, def *Definition) *strategy {
	var gen names.NameGenerator = names.SimpleNameGenerator
	if def.KeepGenerateName {
		gen = keepName{}
	}
	return &strategy{ObjectTyper: typer, NameGenerator: gen, def: def}
}

// keepName generates the base name itself.
type keepName struct{}

func (keepName) GenerateName(base string) string { return base }

func (s *strategy) NamespaceScoped() bool { return s.def.Namespaced }

func (s *strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	if s.def.Status != nil && !s.def.KeepStatusOnCreate {
		resetField(obj, "Status")
	}
	if s.def.Generation {
		if m, err := meta.Accessor(obj); err == nil {
			m.SetGeneration(1)
		}
	}
	if s.def.PrepareForCreate != nil {
		s.def.PrepareForCreate(ctx, obj)
	}
}

func (s *strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	if s.def.Status != nil {
		copyField(obj, old, "Status")
	}
	if s.def.PrepareForUpdate != nil {
		s.def.PrepareForUpdate(ctx, obj, old)
	}
	if s.def.Generation {
		bumpGenerationOnSpecChange(obj, old)
	}
}

func (s *strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	errs := s.validateMeta(obj)
	if s.def.Validate != nil {
		errs = append(errs, s.def.Validate(ctx, obj)...)
	}
	return errs
}

func (s *strategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	var errs field.ErrorList
	if s.def.UpdateMeta != UpdateMetaNew {
		errs = append(errs, s.validateMetaUpdate(obj, old)...)
	}
	if s.def.UpdateMeta != UpdateMetaTransition {
		errs = append(errs, s.validateMeta(obj)...)
	}
	switch {
	case s.def.ValidateUpdate != nil:
		errs = append(errs, s.def.ValidateUpdate(ctx, obj, old)...)
	case s.def.Validate != nil:
		errs = append(errs, s.def.Validate(ctx, obj)...)
	}
	return errs
}

func (s *strategy) WarningsOnCreate(ctx context.Context, obj runtime.Object) []string {
	if s.def.Warnings == nil {
		return nil
	}
	return s.def.Warnings(ctx, obj, nil)
}

func (s *strategy) WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string {
	if s.def.Warnings == nil {
		return nil
	}
	return s.def.Warnings(ctx, obj, old)
}

func (s *strategy) Canonicalize(obj runtime.Object) {
	if s.def.Canonicalize != nil {
		s.def.Canonicalize(obj)
	}
}

// CheckGracefulDelete implements rest.RESTGracefulDeleteStrategy.
func (s *strategy) CheckGracefulDelete(ctx context.Context, obj runtime.Object, options *metav1.DeleteOptions) bool {
	if s.def.CheckGracefulDelete == nil {
		return false
	}
	return s.def.CheckGracefulDelete(ctx, obj, options)
}

// DefaultGarbageCollectionPolicy implements
// rest.GarbageCollectionDeleteStrategy (DeleteDependents is what the
// generic store does for a strategy without one).
func (s *strategy) DefaultGarbageCollectionPolicy(ctx context.Context) rest.GarbageCollectionPolicy {
	if s.def.OrphanByDefault {
		return rest.OrphanDependents
	}
	return rest.DeleteDependents
}

func (s *strategy) AllowCreateOnUpdate() bool      { return s.def.AllowCreateOnUpdate }
func (s *strategy) AllowUnconditionalUpdate() bool { return !s.def.DisallowUnconditionalUpdate }
func (s *strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	if s.def.Status == nil {
		return nil
	}
	return resetFields(s.def, []string{"status"})
}

// statusStrategy is the strategy of the /status subresource: the spec and
// the rest of the object stay as stored, only status (and metadata) change.
type statusStrategy struct {
	*strategy
	sd *StatusDefinition
}

func (s statusStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	copyField(obj, old, "Spec")
	if sd := s.sd; sd != nil && sd.PrepareForUpdate != nil {
		sd.PrepareForUpdate(ctx, obj, old)
	}
}

func (s statusStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	var errs field.ErrorList
	if s.sd == nil || !s.sd.NoMetaCheck {
		errs = s.validateMetaUpdate(obj, old)
	}
	if sd := s.sd; sd != nil && sd.ValidateUpdate != nil {
		errs = append(errs, sd.ValidateUpdate(ctx, obj, old)...)
	}
	return errs
}

func (s statusStrategy) WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string {
	if sd := s.sd; sd != nil && sd.Warnings != nil {
		return sd.Warnings(ctx, obj, old)
	}
	return s.strategy.WarningsOnUpdate(ctx, obj, old)
}

func (s statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	if s.sd != nil && len(s.sd.ResetFields) > 0 {
		return resetFields(s.def, s.sd.ResetFields...)
	}
	return resetFields(s.def, []string{"spec"})
}

func resetFields(def *Definition, paths ...[]string) map[fieldpath.APIVersion]*fieldpath.Set {
	set := fieldpath.NewSet()
	for _, p := range paths {
		parts := make([]interface{}, len(p))
		for i, name := range p {
			parts[i] = name
		}
		set.Insert(fieldpath.MakePathOrDie(parts...))
	}
	out := map[fieldpath.APIVersion]*fieldpath.Set{}
	for _, gv := range def.ServedVersions() {
		out[fieldpath.APIVersion(gv.String())] = set
	}
	return out
}

// copyField sets obj.<name> = old.<name> when both objects have that field.
func copyField(obj, old runtime.Object, name string) {
	dst := reflect.ValueOf(obj).Elem().FieldByName(name)
	src := reflect.ValueOf(old).Elem().FieldByName(name)
	if dst.IsValid() && src.IsValid() && dst.CanSet() {
		dst.Set(src)
	}
}

// resetField sets obj.<name> to its zero value.
func resetField(obj runtime.Object, name string) {
	f := reflect.ValueOf(obj).Elem().FieldByName(name)
	if f.IsValid() && f.CanSet() {
		f.Set(reflect.Zero(f.Type()))
	}
}

func bumpGenerationOnSpecChange(obj, old runtime.Object) {
	n, err1 := meta.Accessor(obj)
	o, err2 := meta.Accessor(old)
	if err1 != nil || err2 != nil {
		return
	}
	newSpec := reflect.ValueOf(obj).Elem().FieldByName("Spec")
	oldSpec := reflect.ValueOf(old).Elem().FieldByName("Spec")
	if !newSpec.IsValid() || !oldSpec.IsValid() {
		return
	}
	n.SetGeneration(o.GetGeneration())
	if !apiequality.Semantic.DeepEqual(newSpec.Interface(), oldSpec.Interface()) {
		n.SetGeneration(o.GetGeneration() + 1)
	}
}

// NewStrategy returns the create and update strategy the generic store of
// def uses (for the drift guard, which runs it beside upstream's).
func NewStrategy(typer runtime.ObjectTyper, def *Definition) interface {
	names.NameGenerator
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
} {
	return newStrategy(typer, def)
}

// NewStatusStrategy returns the update strategy of def's /status (for the
// drift guard); nil when def has no status subresource.
func NewStatusStrategy(typer runtime.ObjectTyper, def *Definition) rest.RESTUpdateStrategy {
	if def.Status == nil {
		return nil
	}
	return statusStrategy{newStrategy(typer, def), def.Status}
}

// NewSubresourceStrategy returns the update strategy of def's
// subresource name (for the drift guard); nil when def has none.
func NewSubresourceStrategy(typer runtime.ObjectTyper, def *Definition, name string) rest.RESTUpdateStrategy {
	sd := def.Subresources[name]
	if sd == nil {
		return nil
	}
	return statusStrategy{newStrategy(typer, def), sd}
}
