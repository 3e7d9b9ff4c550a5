package integration

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/svcplane/svcplane/test/integration/framework"
)

// TestKubernetesService checks the kubernetes Service and its endpoints on a
// server advertising a non-loopback address (nothing connects to it), the
// Service's return after a delete, and the endpoint's removal at shutdown.
func TestKubernetesService(t *testing.T) {
	skipShort(t)
	dir := t.TempDir() // kept across the restart below
	s, err := framework.StartWith(dir, func(o *framework.Options) {
		o.AdvertiseAddress = "10.203.9.1"
		o.KubernetesServiceNodePort = 30443
	})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Client
	var svc *corev1.Service
	eventually(t, "the kubernetes Service", func() bool {
		svc, err = c.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
		return err == nil
	})
	p := svc.Spec.Ports[0]
	if svc.Spec.ClusterIP != "10.96.0.1" || svc.Spec.Type != corev1.ServiceTypeNodePort || p.Name != "https" ||
		p.Port != 443 || p.NodePort != 30443 || p.TargetPort.Type != intstr.Int || svc.Spec.Selector != nil ||
		svc.Labels["component"] != "apiserver" || svc.Labels["provider"] != "kubernetes" {
		t.Fatalf("kubernetes Service: %+v %+v", svc.ObjectMeta, svc.Spec)
	}
	eventually(t, "the endpoint of this server", func() bool {
		ep, err := c.CoreV1().Endpoints("default").Get(ctx, "kubernetes", metav1.GetOptions{})
		slice, err2 := c.DiscoveryV1().EndpointSlices("default").Get(ctx, "kubernetes", metav1.GetOptions{})
		return err == nil && err2 == nil && len(ep.Subsets) == 1 && len(ep.Subsets[0].Addresses) == 1 &&
			ep.Subsets[0].Addresses[0].IP == "10.203.9.1" && ep.Subsets[0].Ports[0].Port == p.TargetPort.IntVal &&
			len(slice.Endpoints) == 1 && slices.Equal(slice.Endpoints[0].Addresses, []string{"10.203.9.1"})
	})

	noErr(t, c.CoreV1().Services("default").Delete(ctx, "kubernetes", metav1.DeleteOptions{}))
	start := time.Now()
	eventually(t, "the kubernetes Service to come back", func() bool {
		_, err := c.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
		return err == nil
	})
	t.Logf("kubernetes Service back %v after its deletion", time.Since(start).Round(time.Millisecond))

	// A graceful stop removes this (last) server's address; a server
	// restarted on the same data dir reads what was left.
	noErr(t, s.Stop())
	s2, err := framework.StartWith(dir, nil) // same data dir: the embedded etcd comes back with the data
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Stop()
	ep, err := s2.Client.CoreV1().Endpoints("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	// The new server (advertising the default address) may have written
	// its own endpoint already; the stopped one's must be gone.
	for _, ss := range ep.Subsets {
		for _, a := range ss.Addresses {
			if a.IP == "10.203.9.1" {
				t.Fatalf("the stopped server's address stayed: %+v", ep.Subsets)
			}
		}
	}
}

// TestSystemNamespaceComesBack deletes kube-node-lease (the one system
// namespace that may be deleted): the namespace controller empties and
// removes it, and the system namespaces controller re-creates it at once.
func TestSystemNamespaceComesBack(t *testing.T) {
	skipShort(t)
	c := server.Client
	old := get(c.CoreV1().Namespaces().Get(ctx, "kube-node-lease", metav1.GetOptions{}))(t)
	noErr(t, c.CoreV1().Namespaces().Delete(ctx, "kube-node-lease", metav1.DeleteOptions{}))
	start := time.Now()
	eventually(t, "kube-node-lease to be back", func() bool {
		ns, err := c.CoreV1().Namespaces().Get(ctx, "kube-node-lease", metav1.GetOptions{})
		return err == nil && ns.UID != old.UID && ns.Status.Phase == corev1.NamespaceActive
	})
	t.Logf("kube-node-lease back %v after its deletion", time.Since(start).Round(time.Millisecond))
}
