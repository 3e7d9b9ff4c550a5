package pod

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
)

// BindingREST serves pods/binding: it assigns a pending pod to a node, as
// the scheduler does.
type BindingREST struct {
	store *genericregistry.Store
}

// NewBindingREST returns the pods/binding storage on the pods store.
func NewBindingREST(store *genericregistry.Store) *BindingREST {
	return &BindingREST{store: store}
}

var _ rest.NamedCreater = &BindingREST{}

// New implements rest.Storage.
func (r *BindingREST) New() runtime.Object { return &corev1.Binding{} }

// Destroy implements rest.Storage.
func (r *BindingREST) Destroy() {}

// Create binds the named pod to binding.Target.
func (r *BindingREST) Create(ctx context.Context, name string, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	b, ok := obj.(*corev1.Binding)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a Binding object: %T", obj))
	}
	if name != b.Name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in Binding object")
	}
	var errs field.ErrorList
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		errs = append(errs, field.NotSupported(field.NewPath("target", "kind"), b.Target.Kind, []string{"Node", "<empty>"}))
	}
	if b.Target.Name == "" {
		errs = append(errs, field.Required(field.NewPath("target", "name"), ""))
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Binding").GroupKind(), b.Name, errs)
	}
	if createValidation != nil {
		if err := createValidation(ctx, b.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	if len(options.DryRun) > 0 {
		return &metav1.Status{Status: metav1.StatusSuccess}, nil
	}
	key, err := r.store.KeyFunc(ctx, name)
	if err != nil {
		return nil, err
	}
	out := &corev1.Pod{}
	err = r.store.Storage.GuaranteedUpdate(ctx, key, out, false, nil,
		storage.SimpleUpdate(func(existing runtime.Object) (runtime.Object, error) {
			return bind(existing.(*corev1.Pod).DeepCopy(), b)
		}), false, nil)
	if err != nil {
		return nil, err
	}
	return &metav1.Status{Status: metav1.StatusSuccess}, nil
}

func bind(p *corev1.Pod, b *corev1.Binding) (runtime.Object, error) {
	if p.DeletionTimestamp != nil {
		return nil, apierrors.NewConflict(corev1.Resource("pods/binding"), p.Name,
			fmt.Errorf("pod %v is being deleted, cannot be assigned to a host", p.Name))
	}
	if p.Spec.NodeName != "" {
		return nil, apierrors.NewConflict(corev1.Resource("pods/binding"), p.Name,
			fmt.Errorf("pod %v is already assigned to node %q", p.Name, p.Spec.NodeName))
	}
	if len(p.Spec.SchedulingGates) != 0 {
		return nil, apierrors.NewConflict(corev1.Resource("pods/binding"), p.Name,
			fmt.Errorf("pod %v has non-empty .spec.schedulingGates", p.Name))
	}
	if b.UID != "" && b.UID != p.UID {
		return nil, apierrors.NewConflict(corev1.Resource("pods/binding"), p.Name,
			fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", b.UID, p.UID))
	}
	p.Spec.NodeName = b.Target.Name
	for k, v := range b.Annotations {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[k] = v
	}
	cond := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}
	replaced := false
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodScheduled {
			p.Status.Conditions[i], replaced = cond, true
		}
	}
	if !replaced {
		p.Status.Conditions = append(p.Status.Conditions, cond)
	}
	return p, nil
}
