package ipallocator

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
)

// IPAddressStore writes IPAddress objects. Create must fail with an
// AlreadyExists API error when the name is taken: that is what keeps an IP
// from having two owners.
type IPAddressStore interface {
	Create(ctx context.Context, ip *networkingv1.IPAddress) error
	Get(ctx context.Context, name string) (*networkingv1.IPAddress, error)
	Delete(ctx context.Context, name string) error
}

// RegistryStorage is what the in-process IPAddress registry store offers.
type RegistryStorage interface {
	rest.Creater
	rest.Getter
	rest.GracefulDeleter
}

// NewRegistryStore writes through the server's own IPAddress storage:
// strategy, validation and etcd, without an HTTP round trip.
func NewRegistryStore(s RegistryStorage) IPAddressStore { return registryStore{s} }

type registryStore struct{ s RegistryStorage }

func clusterCtx(ctx context.Context) context.Context {
	return genericapirequest.WithNamespace(ctx, metav1.NamespaceNone)
}

func (r registryStore) Create(ctx context.Context, ip *networkingv1.IPAddress) error {
	_, err := r.s.Create(clusterCtx(ctx), ip, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	return err
}

func (r registryStore) Get(ctx context.Context, name string) (*networkingv1.IPAddress, error) {
	obj, err := r.s.Get(clusterCtx(ctx), name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return obj.(*networkingv1.IPAddress), nil
}

func (r registryStore) Delete(ctx context.Context, name string) error {
	_, _, err := r.s.Delete(clusterCtx(ctx), name, rest.ValidateAllObjectFunc, &metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
