package integration

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/svcplane/svcplane/internal/testutil"
)

// skipShort skips t under -short: every test here starts or uses a
// svcplane server on a real embedded etcd.
func skipShort(t *testing.T) {
	t.Helper()
	testutil.SkipShort(t, "integration test: needs a svcplane server on a real embedded etcd")
}

// newNamespace creates a namespace for one test and waits for its default
// ServiceAccount, as the e2e framework does: ServiceAccount admission
// refuses pods until the serviceaccount controller has made it (after ~1 s
// of retries).
func newNamespace(t *testing.T, c kubernetes.Interface) string {
	t.Helper()
	ns, err := c.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "it-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitForDefaultServiceAccount(t, c, ns.Name)
	return ns.Name
}

// waitForDefaultServiceAccount waits until ns has its default
// ServiceAccount.
func waitForDefaultServiceAccount(t *testing.T, c kubernetes.Interface, ns string) {
	t.Helper()
	testutil.EventuallyErr(t, 30*time.Second, "the default ServiceAccount of "+ns, func() error {
		_, err := c.CoreV1().ServiceAccounts(ns).Get(context.Background(), "default", metav1.GetOptions{})
		return err
	})
}

// get returns v, or fails the test it is then given with err:
// `svc := get(c.Create(ctx, s, opts))(t)` uses a call's result inline. A
// failure stops this test only; the package's shared server still stops.
func get[T any](v T, err error) func(testing.TB) T { return testutil.Get(v, err) }

// eventually polls cond until it holds or 20 s pass (testutil.Eventually).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testutil.Eventually(t, 20*time.Second, what, cond)
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
	testutil.NoErr(t, err)
}
