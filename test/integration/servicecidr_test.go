package integration

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svcplane/svcplane/internal/controller/servicecidr"
)

// TestUserServiceCIDR adds a ServiceCIDR, allocates from it, and deletes it:
// the deletion waits on the finalizer until the last IP in it is released.
func TestUserServiceCIDR(t *testing.T) {
	skipShort(t)
	c := server.Client
	scs := c.NetworkingV1().ServiceCIDRs()
	get(scs.Create(ctx, &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "extra"},
		Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.200.0.0/24"}}}, metav1.CreateOptions{}))(t)
	get := func() *networkingv1.ServiceCIDR {
		sc, err := scs.Get(ctx, "extra", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		noErr(t, err)
		return sc
	}
	eventually(t, "finalizer and Ready", func() bool {
		sc := get()
		return sc != nil && slices.Contains(sc.Finalizers, servicecidr.Finalizer) &&
			meta.IsStatusConditionTrue(sc.Status.Conditions, networkingv1.ServiceCIDRConditionReady)
	})
	ns := newNamespace(t, c)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "in-extra"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.200.0.5", Ports: []corev1.ServicePort{{Port: 80}}}}
	eventually(t, "the allocator to use the new range", func() bool {
		_, err := c.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
		if err != nil && !strings.Contains(err.Error(), "not in the valid range") {
			t.Fatal(err)
		}
		return err == nil
	})
	noErr(t, scs.Delete(ctx, "extra", metav1.DeleteOptions{}))
	eventually(t, "Ready=False Terminating", func() bool {
		sc := get()
		if sc == nil {
			t.Fatal("the ServiceCIDR went while Service in-extra held an IP only it covers")
		}
		cond := meta.FindStatusCondition(sc.Status.Conditions, networkingv1.ServiceCIDRConditionReady)
		return sc.DeletionTimestamp != nil && cond != nil && cond.Status == metav1.ConditionFalse && cond.Reason == "Terminating"
	})
	_, err := c.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "late"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.200.0.6", Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "not in the valid range") {
		t.Fatalf("a terminating ServiceCIDR must not hand out IPs: %v", err)
	}
	noErr(t, c.CoreV1().Services(ns).Delete(ctx, "in-extra", metav1.DeleteOptions{}))
	eventually(t, "the ServiceCIDR to go once its last IP was released", func() bool { return get() == nil })
}
