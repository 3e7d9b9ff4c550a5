package serviceaccount

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	listers "k8s.io/client-go/listers/core/v1"

	nodeauth "github.com/svcplane/svcplane/internal/auth/node"
)

// listerGetter reads from informers and, when the informer does not have
// the object (yet), from the API, as upstream's getter from client does:
// a token minted for a just-created object authenticates at once.
type listerGetter struct {
	client          kubernetes.Interface
	serviceAccounts listers.ServiceAccountLister
	pods            nodeauth.PodRecordLister
	secrets         listers.SecretLister
	nodes           listers.NodeLister
}

// NewGetter returns a Getter over the shared informers of f, falling back
// to client (nil: informers only) on NotFound.
func NewGetter(client kubernetes.Interface, f informers.SharedInformerFactory) Getter {
	c := f.Core().V1()
	return &listerGetter{client: client, serviceAccounts: c.ServiceAccounts().Lister(),
		pods: nodeauth.PodRecords(f), secrets: c.Secrets().Lister(), nodes: c.Nodes().Lister()}
}

func (g *listerGetter) GetServiceAccount(ctx context.Context, ns, name string) (*corev1.ServiceAccount, error) {
	if sa, err := g.serviceAccounts.ServiceAccounts(ns).Get(name); err == nil || !apierrors.IsNotFound(err) || g.client == nil {
		return sa, err
	}
	return g.client.CoreV1().ServiceAccounts(ns).Get(ctx, name, metav1.GetOptions{})
}

// GetPod gives of a pod in the informer what its record keeps (UID,
// deletionTimestamp, node: what the token validator reads).
func (g *listerGetter) GetPod(ctx context.Context, ns, name string) (*corev1.Pod, error) {
	if r, err := g.pods.Get(ns, name); err == nil {
		return r.Pod(), nil
	} else if !apierrors.IsNotFound(err) || g.client == nil {
		return nil, err
	}
	return g.client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
}

func (g *listerGetter) GetSecret(ctx context.Context, ns, name string) (*corev1.Secret, error) {
	if s, err := g.secrets.Secrets(ns).Get(name); err == nil || !apierrors.IsNotFound(err) || g.client == nil {
		return s, err
	}
	return g.client.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
}

func (g *listerGetter) GetNode(ctx context.Context, name string) (*corev1.Node, error) {
	if n, err := g.nodes.Get(name); err == nil || !apierrors.IsNotFound(err) || g.client == nil {
		return n, err
	}
	return g.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
}
