package resource

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// REST is the storage of a main resource: the generic registry store plus
// the discovery facts (short names, categories) of its Definition.
type REST struct {
	*genericregistry.Store
	def *Definition
}

var (
	_ rest.ShortNamesProvider   = &REST{}
	_ rest.CategoriesProvider   = &REST{}
	_ rest.SingularNameProvider = &REST{}
)

// ShortNames implements rest.ShortNamesProvider.
func (r *REST) ShortNames() []string { return r.def.ShortNames }

// Categories implements rest.CategoriesProvider.
func (r *REST) Categories() []string { return r.def.Categories }

// Definition returns the definition the store was built from.
func (r *REST) Definition() *Definition { return r.def }

// NewStore builds the generic registry store of def on the storage that
// optsGetter gives.
func NewStore(def *Definition, typer runtime.ObjectTyper, optsGetter generic.RESTOptionsGetter) (*REST, error) {
	s := newStrategy(typer, def)
	gr := def.GroupResource()
	store := &genericregistry.Store{
		NewFunc:                  def.New,
		NewListFunc:              def.NewList,
		DefaultQualifiedResource: gr,
		CreateStrategy:           s,
		UpdateStrategy:           s,
		DeleteStrategy:           s,
		ResetFieldsStrategy:      s,
		TableConvertor:           newTableConvertor(def),
	}
	store.SingularQualifiedResource.Group = gr.Group
	store.SingularQualifiedResource.Resource = def.Singular
	if def.TTLSeconds > 0 {
		ttl := def.TTLSeconds
		store.TTLFunc = func(runtime.Object, uint64, bool) (uint64, error) { return ttl, nil }
	}
	opts := &generic.StoreOptions{RESTOptions: optsGetter, AttrFunc: AttrFunc(def)}
	opts.TriggerFunc, opts.Indexers = WatchIndex(def)
	if err := store.CompleteWithOptions(opts); err != nil {
		return nil, fmt.Errorf("%s: %w", gr, err)
	}
	return &REST{Store: store, def: def}, nil
}

// AttrFunc returns the labels and field-selector attributes of an object of
// def's kind.
func AttrFunc(def *Definition) storage.AttrFunc {
	return func(obj runtime.Object) (labels.Set, fields.Set, error) {
		m, err := metaOf(obj)
		if err != nil {
			return nil, nil, err
		}
		fs := generic.ObjectMetaFieldsSet(m, def.Namespaced)
		if def.FieldLabels != nil {
			fs = generic.MergeFieldsSets(fs, def.FieldLabels(obj))
		}
		return labels.Set(m.Labels), fs, nil
	}
}

func metaOf(obj runtime.Object) (*metav1.ObjectMeta, error) {
	a, ok := obj.(metav1.ObjectMetaAccessor)
	if !ok {
		return nil, fmt.Errorf("%T has no object meta", obj)
	}
	return a.GetObjectMeta().(*metav1.ObjectMeta), nil
}

// StatusREST serves the /status subresource of a resource.
type StatusREST struct {
	store *genericregistry.Store
}

// NewStatusREST returns the /status storage sharing main's etcd storage.
func NewStatusREST(main *REST) *StatusREST {
	return NewSubresourceREST(main, main.def.Status)
}

// NewSubresourceREST returns the storage of an update-only subresource
// described by sd (/status, certificatesigningrequests/approval), sharing
// main's etcd storage.
func NewSubresourceREST(main *REST, sd *StatusDefinition) *StatusREST {
	st := *main.Store
	s := statusStrategy{strategy: main.Store.UpdateStrategy.(*strategy), sd: sd}
	st.UpdateStrategy = s
	st.ResetFieldsStrategy = s
	st.CreateStrategy = nil
	st.DeleteStrategy = nil
	// Status writes never allocate or free what the main resource's hooks
	// manage (Service IPs and ports).
	st.BeginCreate, st.BeginUpdate, st.AfterDelete = nil, nil, nil
	return &StatusREST{store: &st}
}

var (
	_ rest.Patcher = &StatusREST{}
	_ rest.Storage = &StatusREST{}
)

// New implements rest.Storage.
func (r *StatusREST) New() runtime.Object { return r.store.New() }

// Destroy implements rest.Storage; the main store owns the storage.
func (r *StatusREST) Destroy() {}

// Get returns the whole object.
func (r *StatusREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// Update changes only the status of the object.
func (r *StatusREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	// Subresources never create the object.
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, options)
}

// GetResetFields implements rest.ResetFieldsStrategy.
func (r *StatusREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}

// ConvertToTable implements rest.TableConvertor.
func (r *StatusREST) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, object, tableOptions)
}
