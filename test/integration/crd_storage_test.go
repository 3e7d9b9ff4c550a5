package integration

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/svcplane/svcplane/internal/testutil"
	"github.com/svcplane/svcplane/test/integration/framework"
)

// TestCustomResourceStorage: CRDs and custom resources are stored where
// and as kube-apiserver stores them (etcd keys, CRDs as JSON in their
// v1beta1 form), custom resources go through --encryption-provider-config
// like built-in resources, and both are served again after a restart.
func TestCustomResourceStorage(t *testing.T) {
	skipShort(t)
	dir, keys := t.TempDir(), t.TempDir()
	cfg := fmt.Sprintf(`{"kind": "EncryptionConfiguration", "apiVersion": "apiserver.config.k8s.io/v1",
 "resources": [{"resources": ["gizmos.lifecycle.it.example.com"], "providers": [{"aescbc": {"keys": [{"name": "key1", "secret": %q}]}}, {"identity": {}}]}]}`,
		aesKey(t, keys, "key1"))
	cfgPath := filepath.Join(keys, "encryption.json")
	noErr(t, os.WriteFile(cfgPath, []byte(cfg), 0o600))
	start := func() *framework.Server {
		s, err := framework.StartWith(dir, func(o *framework.Options) { o.StorageSecurity.EncryptionProviderConfig = cfgPath })
		noErr(t, err)
		return s
	}
	s := start()
	crds := get(apiextensionsclient.NewForConfig(s.Config))(t).ApiextensionsV1().CustomResourceDefinitions()
	get(crds.Create(ctx, decodeCRD(t, gizmosCRD), metav1.CreateOptions{}))(t)
	gizmos := get(dynamic.NewForConfig(s.Config))(t).Resource(gizmosGVR).Namespace("default")
	testutil.EventuallyErr(t, 30*time.Second, "gizmos served", func() error {
		_, err := gizmos.List(ctx, metav1.ListOptions{})
		return err
	})
	obj := gizmo("secret-gizmo")
	noErr(t, unstructured.SetNestedField(obj.Object, "very-secret-value", "spec", "data"))
	get(gizmos.Create(ctx, obj, metav1.CreateOptions{}))(t)

	ec := etcdClient(t, dir)
	crd := etcdValue(t, ec, "/registry/apiextensions.k8s.io/customresourcedefinitions/gizmos.lifecycle.it.example.com")
	if !bytes.HasPrefix(crd, []byte("{")) || !bytes.Contains(crd, []byte(`"apiVersion":"apiextensions.k8s.io/v1beta1"`)) {
		t.Errorf("stored CRD is not v1beta1 JSON: %.80q", crd)
	}
	cr := etcdValue(t, ec, "/registry/lifecycle.it.example.com/gizmos/default/secret-gizmo")
	if !bytes.HasPrefix(cr, []byte("k8s:enc:aescbc:v1:key1:")) || bytes.Contains(cr, []byte("very-secret-value")) {
		t.Errorf("stored Gizmo is not aescbc-encrypted with key1: %.64q", cr)
	}
	ec.Close()
	noErr(t, s.Stop())

	// After a restart /readyz waits for the CRD informer: the resource is
	// served at once.
	s = start()
	defer func() { noErr(t, s.Stop()) }()
	got := get(get(dynamic.NewForConfig(s.Config))(t).Resource(gizmosGVR).Namespace("default").Get(ctx, "secret-gizmo", metav1.GetOptions{}))(t)
	if v, _, _ := unstructured.NestedString(got.Object, "spec", "data"); v != "very-secret-value" {
		t.Fatalf("after a restart: %v", got.Object)
	}
	found := false
	for _, l := range get(s.Client.Discovery().ServerPreferredResources())(t) {
		found = found || strings.HasPrefix(l.GroupVersion, schema.GroupVersion{Group: gizmosGVR.Group, Version: "v1"}.String())
	}
	if !found {
		t.Fatal("after a restart the CRD group is not in discovery")
	}
	groups := get(s.Client.Discovery().WithLegacy().ServerGroups())(t)
	found = false
	for _, g := range groups.Groups {
		found = found || g.Name == gizmosGVR.Group
	}
	if !found {
		t.Fatal("after a restart the CRD group is not in the unaggregated /apis list")
	}
}
