package integration

import (
	"fmt"
	"testing"
	"time"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/svcplane/svcplane/internal/testutil"
	"github.com/svcplane/svcplane/test/integration/framework"
)

// TestCRDAcrossServers: two servers on one etcd (a keyspace of their
// own) — a CRD created through one is served by the other, custom
// resources written through either are read through both, and deleting
// the CRD through the second removes them and the resource from both.
func TestCRDAcrossServers(t *testing.T) {
	skipShort(t)
	servers := make([]*framework.Server, 2)
	for i := range servers {
		s, err := framework.StartWith("", func(o *framework.Options) {
			o.EtcdServers = server.EtcdEndpoints
			o.EtcdPrefix = "/crd-ha"
			o.APIServerCount = 2
			o.AdvertiseAddress = fmt.Sprintf("10.203.20.%d", i+1)
		})
		noErr(t, err)
		t.Cleanup(func() { noErr(t, s.Stop()) })
		servers[i] = s
	}
	crdsA := get(apiextensionsclient.NewForConfig(servers[0].Config))(t).ApiextensionsV1().CustomResourceDefinitions()
	crdsB := get(apiextensionsclient.NewForConfig(servers[1].Config))(t).ApiextensionsV1().CustomResourceDefinitions()
	gizmosA := get(dynamic.NewForConfig(servers[0].Config))(t).Resource(gizmosGVR).Namespace("default")
	gizmosB := get(dynamic.NewForConfig(servers[1].Config))(t).Resource(gizmosGVR).Namespace("default")

	get(crdsA.Create(ctx, decodeCRD(t, gizmosCRD), metav1.CreateOptions{}))(t)
	// With --apiserver-count 2 the CRD is Established 5 s after its names
	// are accepted (upstream's wait for the other servers).
	testutil.EventuallyErr(t, 30*time.Second, "gizmos served by the second server", func() error {
		_, err := gizmosB.List(ctx, metav1.ListOptions{})
		return err
	})
	get(gizmosB.Create(ctx, gizmo("from-b"), metav1.CreateOptions{}))(t)
	get(gizmosA.Create(ctx, gizmo("from-a"), metav1.CreateOptions{}))(t)
	for _, g := range []dynamic.ResourceInterface{gizmosA, gizmosB} {
		testutil.Eventually(t, 10*time.Second, "both Gizmos listed by every server", func() bool {
			l, err := g.List(ctx, metav1.ListOptions{})
			return err == nil && len(l.Items) == 2
		})
	}

	noErr(t, crdsB.Delete(ctx, "gizmos.lifecycle.it.example.com", metav1.DeleteOptions{}))
	testutil.Eventually(t, 60*time.Second, "the CRD gone from the first server", func() bool {
		_, err := crdsA.Get(ctx, "gizmos.lifecycle.it.example.com", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	for _, g := range []dynamic.ResourceInterface{gizmosA, gizmosB} {
		testutil.Eventually(t, 10*time.Second, "gizmos no longer served", func() bool {
			_, err := g.List(ctx, metav1.ListOptions{})
			return apierrors.IsNotFound(err)
		})
	}
}
