package kubernetesservice

import (
	"context"
	"net"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/svcplane/svcplane/internal/bootstrap/reconcilers"
)

func TestSyncCreatesAndFixesTheService(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	cfg := Config{ServiceIP: net.ParseIP("10.96.0.1"), ServicePort: 443, PublicIP: net.ParseIP("10.0.0.7"), PublicPort: 6443}
	clk := testingclock.NewFakeClock(time.Now())
	c := New(cfg, client, reconcilers.NewLease(client, reconcilers.NewFakeLeases(clk)), clk, func(context.Context) bool { return true })
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	svc, err := client.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Spec.ClusterIP != "10.96.0.1" || svc.Spec.Type != corev1.ServiceTypeClusterIP || svc.Spec.Ports[0].TargetPort != intstr.FromInt32(6443) {
		t.Fatalf("created: %+v", svc.Spec)
	}
	ep, err := client.CoreV1().Endpoints("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil || ep.Subsets[0].Addresses[0].IP != "10.0.0.7" || ep.Subsets[0].Ports[0].Port != 6443 {
		t.Fatalf("endpoints: %+v %v", ep, err)
	}
	// Someone changes the port: the next sync puts it back.
	svc.Spec.Ports[0].Port = 8443
	if _, err := client.CoreV1().Services("default").Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	svc, _ = client.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if svc.Spec.Ports[0].Port != 443 {
		t.Fatalf("port not reconciled: %+v", svc.Spec.Ports)
	}
	// Stop takes this (last) server out.
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	ep, _ = client.CoreV1().Endpoints("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if len(ep.Subsets) != 0 {
		t.Fatalf("after Stop: %+v", ep.Subsets)
	}
}
