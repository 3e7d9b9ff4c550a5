package bench

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// createPodNamespace creates a namespace for a bench's pods and waits for
// its default ServiceAccount, as the e2e framework does: ServiceAccount
// admission refuses pods until the serviceaccount controller has made it,
// and a ReplicaSet would back off, which the timings must not include.
func createPodNamespace(ctx context.Context, client kubernetes.Interface, name string) error {
	return createPodNamespaceWith(ctx, client, name, false)
}

// createPodNamespaceWith is createPodNamespace; makeServiceAccount
// creates the default ServiceAccount too, for a server side without the
// serviceaccount controller (upstream without kube-controller-manager).
func createPodNamespaceWith(ctx context.Context, client kubernetes.Interface, name string, makeServiceAccount bool) error {
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	if makeServiceAccount {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
		if _, err := client.CoreV1().ServiceAccounts(name).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		return fmt.Errorf("namespace %s has no default ServiceAccount: %w", name, err)
	}
	return nil
}
