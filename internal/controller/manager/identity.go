package manager

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

// RootUser is the controller manager's own user (its Lease, the shared
// informers, the ServiceAccounts of its controllers), bound to
// system:kube-controller-manager by upstream's bootstrap policy.
const RootUser = "system:kube-controller-manager"

// Identity is a user and its groups.
type Identity struct {
	User   string
	Groups []string
}

// Credentials returns a client config acting as id. Run gives each
// controller its own identity with it; nil runs every controller on Run's
// config.
type Credentials func(id Identity) (*rest.Config, error)

// identity is whom c acts as, if it names anyone.
func (c Controller) identity() (Identity, bool) {
	switch {
	case c.ServiceAccount != "":
		return Identity{User: serviceaccount.MakeUsername(metav1.NamespaceSystem, c.ServiceAccount),
			Groups: serviceaccount.MakeGroupNames(metav1.NamespaceSystem)}, true
	case c.User != "":
		return Identity{User: c.User}, true
	}
	return Identity{}, false
}

// depsFor builds, once per identity, the clients of the controllers that
// act as it; the informers stay the root's.
type depsFor struct {
	root  Deps
	creds Credentials
	mu    sync.Mutex
	byID  map[string]Deps
}

func (f *depsFor) get(c Controller) Deps {
	id, ok := c.identity()
	if !ok || f.creds == nil {
		return f.root
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if d, ok := f.byID[id.User]; ok {
		d.Informers, d.InformersStarted = f.root.Informers, f.root.InformersStarted
		return d
	}
	cfg, err := f.creds(id)
	if err == nil {
		var d Deps
		if d.Client, d.Dynamic, d.Metadata, err = clients(cfg); err == nil {
			d.Config = f.root.Config
			f.byID[id.User] = d
			d.Informers, d.InformersStarted = f.root.Informers, f.root.InformersStarted
			return d
		}
	}
	klog.ErrorS(err, "No own credentials for a controller; it runs as the controller manager", "controller", c.Name, "user", id.User)
	return f.root
}

// ensureServiceAccounts creates the kube-system ServiceAccounts the
// controllers act as, as kube-controller-manager's client builder does.
func ensureServiceAccounts(ctx context.Context, client kubernetes.Interface, controllers []Controller) {
	seen := map[string]bool{}
	for _, c := range controllers {
		if c.ServiceAccount == "" || seen[c.ServiceAccount] {
			continue
		}
		seen[c.ServiceAccount] = true
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: c.ServiceAccount}}
		if _, err := client.CoreV1().ServiceAccounts(metav1.NamespaceSystem).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			klog.ErrorS(err, "Creating a controller's ServiceAccount", "serviceAccount", c.ServiceAccount)
		}
	}
}
