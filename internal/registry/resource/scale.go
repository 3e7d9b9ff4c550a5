package resource

import (
	"context"
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
)

// ScaleAccessor reads and writes the replica counts of a scalable kind.
type ScaleAccessor struct {
	// Replicas returns spec.replicas, status.replicas and the label
	// selector in its string form.
	Replicas func(obj runtime.Object) (spec, status int32, selector string)
	// SetReplicas sets spec.replicas.
	SetReplicas func(obj runtime.Object, replicas int32)
}

// ScaleREST serves the /scale subresource as autoscaling/v1 Scale.
type ScaleREST struct {
	main     *REST
	accessor ScaleAccessor
}

// NewScaleREST returns the /scale storage of main.
func NewScaleREST(main *REST, accessor ScaleAccessor) *ScaleREST {
	return &ScaleREST{main: main, accessor: accessor}
}

var (
	_ rest.Patcher                  = &ScaleREST{}
	_ rest.GroupVersionKindProvider = &ScaleREST{}
)

// GroupVersionKind implements rest.GroupVersionKindProvider.
func (r *ScaleREST) GroupVersionKind(containingGV schema.GroupVersion) schema.GroupVersionKind {
	return autoscalingv1.SchemeGroupVersion.WithKind("Scale")
}

// New implements rest.Storage.
func (r *ScaleREST) New() runtime.Object { return &autoscalingv1.Scale{} }

// Destroy implements rest.Storage.
func (r *ScaleREST) Destroy() {}

// Get returns the Scale of the named object.
func (r *ScaleREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	obj, err := r.main.Get(ctx, name, options)
	if err != nil {
		return nil, err
	}
	return r.scaleOf(obj)
}

func (r *ScaleREST) scaleOf(obj runtime.Object) (*autoscalingv1.Scale, error) {
	m, err := metaOf(obj)
	if err != nil {
		return nil, err
	}
	spec, status, selector := r.accessor.Replicas(obj)
	return &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{
			Name: m.Name, Namespace: m.Namespace, UID: m.UID,
			ResourceVersion: m.ResourceVersion, CreationTimestamp: m.CreationTimestamp,
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: spec},
		Status: autoscalingv1.ScaleStatus{Replicas: status, Selector: selector},
	}, nil
}

// Update changes spec.replicas of the named object from the given Scale.
func (r *ScaleREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	info := &scaleUpdatedObjectInfo{name: name, reqObjInfo: objInfo, r: r}
	obj, _, err := r.main.Update(ctx, name, info, nil, nil, false, options)
	if err != nil {
		return nil, false, err
	}
	s, err := r.scaleOf(obj)
	return s, false, err
}

// ConvertToTable implements rest.TableConvertor.
func (r *ScaleREST) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return rest.NewDefaultTableConvertor(r.main.DefaultQualifiedResource).ConvertToTable(ctx, object, tableOptions)
}

// scaleUpdatedObjectInfo turns an update of the Scale into an update of the
// scaled object.
type scaleUpdatedObjectInfo struct {
	name       string
	reqObjInfo rest.UpdatedObjectInfo
	r          *ScaleREST
}

func (i *scaleUpdatedObjectInfo) Preconditions() *metav1.Preconditions {
	return i.reqObjInfo.Preconditions()
}

func (i *scaleUpdatedObjectInfo) UpdatedObject(ctx context.Context, oldObj runtime.Object) (runtime.Object, error) {
	if oldObj == nil {
		return nil, errors.NewNotFound(i.r.main.DefaultQualifiedResource, i.name)
	}
	oldScale, err := i.r.scaleOf(oldObj)
	if err != nil {
		return nil, err
	}
	obj, err := i.reqObjInfo.UpdatedObject(ctx, oldScale)
	if err != nil {
		return nil, err
	}
	scale, ok := obj.(*autoscalingv1.Scale)
	if !ok {
		return nil, errors.NewBadRequest(fmt.Sprintf("expected input object type to be Scale, but %T", obj))
	}
	if scale.Spec.Replicas < 0 {
		errs := field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), scale.Spec.Replicas, "must be greater than or equal to 0")}
		return nil, errors.NewInvalid(autoscalingv1.SchemeGroupVersion.WithKind("Scale").GroupKind(), i.name, errs)
	}
	if scale.ResourceVersion != "" && scale.ResourceVersion != oldScale.ResourceVersion {
		return nil, errors.NewConflict(i.r.main.DefaultQualifiedResource, i.name,
			fmt.Errorf("%s", "the object has been modified; please apply your changes to the latest version and try again"))
	}
	newObj := oldObj.DeepCopyObject()
	i.r.accessor.SetReplicas(newObj, scale.Spec.Replicas)
	return newObj, nil
}
