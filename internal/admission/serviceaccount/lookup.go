package serviceaccount

import (
	"context"
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// defaultAttempts is how often the "default" ServiceAccount is asked for
// live before a pod is refused: the serviceaccount controller creates it
// just after its namespace, so a pod created at once may come before it.
const defaultAttempts = 10

// getServiceAccount returns namespace/name from the informer, else from
// the API (upstream's getServiceAccount): one attempt, ten for "default",
// 100–200 ms apart (one random interval per look-up). A missing one is
// upstream's NotFound for resource "serviceaccount".
func (p *Plugin) getServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	sa, err := p.serviceAccounts.ServiceAccounts(namespace).Get(name)
	if err == nil {
		return sa, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, err
	}
	attempts := 1
	if name == DefaultServiceAccountName {
		attempts = defaultAttempts
	}
	interval := time.Duration(100+rand.Int64N(100)) * time.Millisecond
	for i := 0; i < attempts; i++ {
		if i != 0 {
			select {
			case <-p.clock.After(interval):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		sa, err := p.client.CoreV1().ServiceAccounts(namespace).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			return sa, nil
		}
		if !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "serviceaccount"}, name)
}
