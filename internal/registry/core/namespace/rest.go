package namespace

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// REST is the namespaces storage: the generic store with upstream's
// two-phase delete.
type REST struct {
	*resource.REST
}

// NewREST wraps the generic store of the namespaces Definition.
func NewREST(main *resource.REST) *REST {
	main.Store.ShouldDeleteDuringUpdate = shouldDeleteDuringUpdate
	return &REST{REST: main}
}

// shouldDeleteDuringUpdate removes a terminating namespace once neither
// spec.finalizers nor metadata.finalizers hold anything.
func shouldDeleteDuringUpdate(ctx context.Context, key string, obj, existing runtime.Object) bool {
	ns, ok := obj.(*corev1.Namespace)
	return ok && len(ns.Spec.Finalizers) == 0 && genericregistry.ShouldDeleteDuringUpdate(ctx, key, obj, existing)
}

// Delete marks the namespace Terminating (setting deletionTimestamp) while
// it has spec finalizers; without any it is removed at once.
func (r *REST) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	obj, err := r.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, false, err
	}
	ns := obj.(*corev1.Namespace)
	if options == nil {
		options = metav1.NewDeleteOptions(0)
	}
	if p := options.Preconditions; p != nil {
		if p.UID != nil && *p.UID != ns.UID {
			return nil, false, apierrors.NewConflict(r.DefaultQualifiedResource, name,
				fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, ns.UID))
		}
		if p.ResourceVersion != nil && *p.ResourceVersion != ns.ResourceVersion {
			return nil, false, apierrors.NewConflict(r.DefaultQualifiedResource, name,
				fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, ns.ResourceVersion))
		}
	}
	if ns.DeletionTimestamp == nil && len(ns.Spec.Finalizers) > 0 {
		return r.markTerminating(ctx, ns, deleteValidation, options)
	}
	if len(ns.Spec.Finalizers) > 0 {
		return ns, false, nil
	}
	return r.Store.Delete(ctx, name, deleteValidation, options)
}

func (r *REST) markTerminating(ctx context.Context, ns *corev1.Namespace, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	if deleteValidation != nil {
		if err := deleteValidation(ctx, ns); err != nil {
			return nil, false, err
		}
	}
	key, err := r.Store.KeyFunc(ctx, ns.Name)
	if err != nil {
		return nil, false, err
	}
	if len(options.DryRun) > 0 {
		out := ns.DeepCopy()
		now := metav1.Now()
		out.DeletionTimestamp, out.Status.Phase = &now, corev1.NamespaceTerminating
		return out, false, nil
	}
	out := &corev1.Namespace{}
	uid := ns.UID
	err = r.Store.Storage.GuaranteedUpdate(ctx, key, out, false, &storage.Preconditions{UID: &uid},
		storage.SimpleUpdate(func(existing runtime.Object) (runtime.Object, error) {
			cur := existing.(*corev1.Namespace)
			if cur.DeletionTimestamp != nil {
				return cur, nil
			}
			cur = cur.DeepCopy()
			now := metav1.Now()
			cur.DeletionTimestamp = &now
			cur.Status.Phase = corev1.NamespaceTerminating
			applyPropagationFinalizer(cur, options)
			return cur, nil
		}), false, nil)
	if err != nil {
		return nil, false, err
	}
	return out, false, nil
}

// applyPropagationFinalizer adds the orphan or foregroundDeletion finalizer
// the request's propagation policy asks for.
func applyPropagationFinalizer(ns *corev1.Namespace, options *metav1.DeleteOptions) {
	var f string
	switch {
	case options.PropagationPolicy != nil && *options.PropagationPolicy == metav1.DeletePropagationForeground:
		f = metav1.FinalizerDeleteDependents
	case options.PropagationPolicy != nil && *options.PropagationPolicy == metav1.DeletePropagationOrphan,
		options.OrphanDependents != nil && *options.OrphanDependents:
		f = metav1.FinalizerOrphanDependents
	default:
		return
	}
	for _, x := range ns.Finalizers {
		if x == f {
			return
		}
	}
	ns.Finalizers = append(ns.Finalizers, f)
}

// FinalizeREST serves /finalize: it changes only spec.finalizers.
type FinalizeREST struct {
	store *genericregistry.Store
}

// NewFinalizeREST returns the /finalize storage of a namespaces store.
func NewFinalizeREST(main *REST) *FinalizeREST {
	st := *main.Store
	s := finalizeStrategy{RESTUpdateStrategy: main.Store.UpdateStrategy}
	st.UpdateStrategy = s
	st.ResetFieldsStrategy = nil
	return &FinalizeREST{store: &st}
}

// New implements rest.Storage.
func (r *FinalizeREST) New() runtime.Object { return &corev1.Namespace{} }

// Destroy implements rest.Storage.
func (r *FinalizeREST) Destroy() {}

// Update changes the namespace's spec.finalizers.
func (r *FinalizeREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, options)
}

type finalizeStrategy struct {
	rest.RESTUpdateStrategy
}

// PrepareForUpdate keeps everything of the stored namespace except
// spec.finalizers.
func (s finalizeStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	ns, o := obj.(*corev1.Namespace), old.(*corev1.Namespace)
	finalizers := ns.Spec.Finalizers
	ns.Spec = o.Spec
	ns.Spec.Finalizers = finalizers
	ns.Status = o.Status
}
