package rootcacertpublisher

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

const ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

func newTest(objs ...runtime.Object) (*Controller, *fake.Clientset) {
	client := fake.NewClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	c := New(client, f.Core().V1().Namespaces(), f.Core().V1().ConfigMaps(), []byte(ca))
	for _, o := range objs {
		if cm, ok := o.(*corev1.ConfigMap); ok {
			_ = f.Core().V1().ConfigMaps().Informer().GetStore().Add(cm)
		}
	}
	return c, client
}

func cm(data map[string]string, annotations map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: ConfigMapName, Annotations: annotations,
		Labels: map[string]string{"kept": "yes"}}, Data: data}
}

func TestSync(t *testing.T) {
	good := map[string]string{DataKey: ca}
	described := map[string]string{DescriptionAnnotation: Description}
	cases := map[string]struct {
		existing *corev1.ConfigMap
		verb     string // the one write expected, "" for none
	}{
		"missing":                {nil, "create"},
		"up to date":             {cm(good, described), ""},
		"other description kept": {cm(good, map[string]string{DescriptionAnnotation: "mine"}), ""},
		"data changed":           {cm(map[string]string{DataKey: "forged"}, described), "update"},
		"extra key":              {cm(map[string]string{DataKey: ca, "x": "y"}, described), "update"},
		"annotation removed":     {cm(good, nil), "update"},
		"data emptied":           {cm(nil, described), "update"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var objs []runtime.Object
			if tc.existing != nil {
				objs = append(objs, tc.existing)
			}
			c, client := newTest(objs...)
			if err := c.sync(context.Background(), "a"); err != nil {
				t.Fatal(err)
			}
			var verbs []string
			for _, a := range client.Actions() {
				if v := a.GetVerb(); v == "create" || v == "update" {
					verbs = append(verbs, v)
				}
			}
			if (tc.verb == "" && len(verbs) != 0) || (tc.verb != "" && (len(verbs) != 1 || verbs[0] != tc.verb)) {
				t.Fatalf("writes %v, want %q", verbs, tc.verb)
			}
			got, err := client.CoreV1().ConfigMaps("a").Get(context.Background(), ConfigMapName, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.verb != "" && (got.Data[DataKey] != ca || len(got.Data) != 1 || got.Annotations[DescriptionAnnotation] != Description) {
				t.Fatalf("config map after sync: %+v", got)
			}
			if tc.verb == "update" && got.Labels["kept"] != "yes" {
				t.Fatalf("update dropped the labels: %+v", got.Labels)
			}
		})
	}
}

func TestCreateRefusedNotRetried(t *testing.T) {
	for name, tc := range map[string]struct {
		err   error
		retry bool
	}{
		"namespace gone": {apierrors.NewNotFound(corev1.Resource("namespaces"), "a"), false},
		"namespace terminating": {&apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure,
			Reason:  metav1.StatusReasonForbidden,
			Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause}}}}}, false},
		"server error": {apierrors.NewInternalError(context.DeadlineExceeded), true},
	} {
		t.Run(name, func(t *testing.T) {
			c, client := newTest()
			client.PrependReactor("create", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
				return true, nil, tc.err
			})
			if err := c.sync(context.Background(), "a"); (err != nil) != tc.retry {
				t.Fatalf("sync error %v, want retry=%v", err, tc.retry)
			}
		})
	}
}

func TestEvents(t *testing.T) {
	c, _ := newTest()
	c.enqueueConfigMap(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "other"}})
	if c.queue.Len() != 0 {
		t.Fatal("another ConfigMap must not enqueue its namespace")
	}
	c.enqueueConfigMap(cm(nil, nil))
	c.enqueueConfigMap(cache.DeletedFinalStateUnknown{Obj: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: ConfigMapName}}})
	if c.queue.Len() != 2 {
		t.Fatalf("queue holds %d keys, want 2", c.queue.Len())
	}
}
