package serviceaccount

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
)

// newTest returns a controller whose informer stores hold objs; the test
// calls sync itself (no goroutines).
func newTest(objs ...runtime.Object) (*Controller, *fake.Clientset) {
	client := fake.NewClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	c := New(client, f.Core().V1().Namespaces(), f.Core().V1().ServiceAccounts(), DefaultServiceAccounts)
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.Namespace:
			_ = f.Core().V1().Namespaces().Informer().GetStore().Add(o)
		case *corev1.ServiceAccount:
			_ = f.Core().V1().ServiceAccounts().Informer().GetStore().Add(o)
		}
	}
	return c, client
}

func ns(name string, phase corev1.NamespacePhase) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NamespaceStatus{Phase: phase}}
}

func sa(namespace, name string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
}

func TestSync(t *testing.T) {
	cases := map[string]struct {
		objs        []runtime.Object
		wantCreates int
		wantDefault bool
	}{
		"active namespace without default":  {[]runtime.Object{ns("a", corev1.NamespaceActive)}, 1, true},
		"active namespace with default":     {[]runtime.Object{ns("a", corev1.NamespaceActive), sa("a", "default")}, 0, true},
		"other accounts do not count":       {[]runtime.Object{ns("a", corev1.NamespaceActive), sa("a", "builder")}, 1, true},
		"terminating namespace is left":     {[]runtime.Object{ns("a", corev1.NamespaceTerminating)}, 0, false},
		"namespace gone":                    {nil, 0, false},
		"default in another namespace only": {[]runtime.Object{ns("a", corev1.NamespaceActive), sa("b", "default")}, 1, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, client := newTest(tc.objs...)
			if err := c.sync(context.Background(), "a"); err != nil {
				t.Fatal(err)
			}
			creates := 0
			for _, a := range client.Actions() {
				if a.GetVerb() == "create" && a.GetResource().Resource == "serviceaccounts" {
					creates++
				}
			}
			_, err := client.CoreV1().ServiceAccounts("a").Get(context.Background(), "default", metav1.GetOptions{})
			if creates != tc.wantCreates || (err == nil) != tc.wantDefault {
				t.Fatalf("creates %d (want %d), default present=%v (want %v)", creates, tc.wantCreates, err == nil, tc.wantDefault)
			}
		})
	}
}

func TestSyncIgnoresTerminatingAndExisting(t *testing.T) {
	for name, createErr := range map[string]error{
		"already exists": apierrors.NewAlreadyExists(corev1.Resource("serviceaccounts"), "default"),
		"namespace terminating": &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure,
			Reason:  metav1.StatusReasonForbidden,
			Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause}}}}},
	} {
		t.Run(name, func(t *testing.T) {
			c, client := newTest(ns("a", corev1.NamespaceActive))
			client.PrependReactor("create", "serviceaccounts", func(clienttesting.Action) (bool, runtime.Object, error) {
				return true, nil, createErr
			})
			if err := c.sync(context.Background(), "a"); err != nil {
				t.Fatalf("sync: %v", err)
			}
		})
	}
	c, client := newTest(ns("a", corev1.NamespaceActive))
	client.PrependReactor("create", "serviceaccounts", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewInternalError(context.DeadlineExceeded)
	})
	if err := c.sync(context.Background(), "a"); err == nil {
		t.Fatal("other create errors must be retried")
	}
}

func TestEventsEnqueueNamespace(t *testing.T) {
	c, _ := newTest()
	c.enqueueNamespace(ns("a", corev1.NamespaceActive))
	c.accountDeleted(sa("b", "default"))
	c.accountDeleted(cacheTombstone(sa("c", "default")))
	if got := c.queue.Len(); got != 3 {
		t.Fatalf("queue holds %d keys, want 3", got)
	}
}

func cacheTombstone(obj runtime.Object) interface{} {
	return cache.DeletedFinalStateUnknown{Key: "x", Obj: obj}
}
