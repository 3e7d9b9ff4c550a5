package integration

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// newNamespace creates a namespace for one test.
func newNamespace(t *testing.T, c kubernetes.Interface) string {
	t.Helper()
	ns, err := c.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "it-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// must returns v, or panics on err: it lets a test use a call's result
// inline; a panic fails the test binary with the failing line in its trace.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// updateRetrying reads with get, applies change and writes with update,
// again on a conflict: for objects a controller writes too (status,
// annotations), as a kubectl edit would be retried by hand.
func updateRetrying[T any](t *testing.T, get func() (T, error), change func(T), update func(T) (T, error)) T {
	t.Helper()
	var out T
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := get()
		if err != nil {
			return err
		}
		change(cur)
		out, err = update(cur)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
