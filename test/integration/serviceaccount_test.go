package integration

import (
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestNamespaceGetsDefaultServiceAccountAndRootCA: a new namespace gets the
// default ServiceAccount and the kube-root-ca.crt ConfigMap holding the
// cluster CA (what the conformance suite waits for in every BeforeEach);
// both come back when deleted, the ConfigMap is written back when changed.
func TestNamespaceGetsDefaultServiceAccountAndRootCA(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	ca := string(get(os.ReadFile(server.CA().CertFile))(t))
	hasSA := func() bool {
		_, err := c.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	}
	rootCA := func() *corev1.ConfigMap {
		cm, err := c.CoreV1().ConfigMaps(ns).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
		if err != nil {
			return nil
		}
		return cm
	}
	published := func() bool {
		cm := rootCA()
		return cm != nil && cm.Data["ca.crt"] == ca && len(cm.Data) == 1 &&
			cm.Annotations["kubernetes.io/description"] != ""
	}
	eventually(t, "the default ServiceAccount", hasSA)
	eventually(t, "kube-root-ca.crt with the cluster CA", published)

	noErr(t, c.CoreV1().ServiceAccounts(ns).Delete(ctx, "default", metav1.DeleteOptions{}))
	eventually(t, "the default ServiceAccount re-created", hasSA)

	noErr(t, c.CoreV1().ConfigMaps(ns).Delete(ctx, "kube-root-ca.crt", metav1.DeleteOptions{}))
	eventually(t, "kube-root-ca.crt re-created", published)

	cms := c.CoreV1().ConfigMaps(ns)
	updateRetrying(t, func() (*corev1.ConfigMap, error) { return cms.Get(ctx, "kube-root-ca.crt", metav1.GetOptions{}) },
		func(cm *corev1.ConfigMap) { cm.Data["ca.crt"] = "forged"; cm.Annotations = nil },
		func(cm *corev1.ConfigMap) (*corev1.ConfigMap, error) {
			return cms.Update(ctx, cm, metav1.UpdateOptions{})
		})
	eventually(t, "kube-root-ca.crt written back", published)

	// The system namespaces have both too.
	for _, sys := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		eventually(t, sys+" has both", func() bool {
			_, errSA := c.CoreV1().ServiceAccounts(sys).Get(ctx, "default", metav1.GetOptions{})
			_, errCM := c.CoreV1().ConfigMaps(sys).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
			return errSA == nil && errCM == nil
		})
	}
}
