package integration

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svcplane/svcplane/test/integration/framework"
)

// TestContinueTokenExpiresAfterCompaction: the API server's compactor
// compacts the embedded member every --etcd-compaction-interval and
// records it, so a continue token older than the compaction gets 410 Gone
// with an inconsistent-continue token, even when the list is served from
// the watch cache's snapshots (upstream's chunking conformance spec
// "compacted away, though the list is inconsistent").
func TestContinueTokenExpiresAfterCompaction(t *testing.T) {
	skipShort(t)
	s, err := framework.StartWith("", func(o *framework.Options) { o.EtcdCompactionInterval = time.Second })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	c := s.Client
	ns := newNamespace(t, c)
	api := c.CoreV1().ConfigMaps(ns)
	for i := 0; i < 5; i++ {
		get(api.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}}, metav1.CreateOptions{}))(t)
	}
	first := get(api.List(ctx, metav1.ListOptions{Limit: 2}))(t)
	if first.Continue == "" {
		t.Fatal("no continue token")
	}
	var last error
	eventually(t, "the continue token expired by compaction", func() bool {
		// Writes move the revision on, so the compactor has something to
		// compact past the token's revision.
		get(api.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "more-"}}, metav1.CreateOptions{}))(t)
		_, last = api.List(ctx, metav1.ListOptions{Limit: 2, Continue: first.Continue})
		return last != nil
	})
	if !apierrors.IsResourceExpired(last) {
		t.Fatalf("continue after compaction: %v, want 410 Gone (Expired)", last)
	}
	st, ok := last.(apierrors.APIStatus)
	if !ok || st.Status().ListMeta.Continue == "" {
		t.Fatalf("410 without an inconsistent continue token: %#v", last)
	}
	rest := get(api.List(ctx, metav1.ListOptions{Limit: 100, Continue: st.Status().ListMeta.Continue}))(t)
	if len(rest.Items) == 0 {
		t.Fatal("the inconsistent continue token listed nothing")
	}
}
