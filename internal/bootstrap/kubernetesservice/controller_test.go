package kubernetesservice

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/svcplane/svcplane/internal/allocator/ipallocator"
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

// TestSyncReclaimsTheIPOfAVanishedService: the Service's key vanished but
// its IPAddress (naming the kubernetes Service) stayed, so a create is
// refused as the API server refuses it; Sync takes the IP back and creates
// the Service at once. An IPAddress naming another Service is left alone.
func TestSyncReclaimsTheIPOfAVanishedService(t *testing.T) {
	for _, tc := range []struct {
		owner     string
		reclaimed bool
	}{{"kubernetes", true}, {"someone-else", false}} {
		ctx := context.Background()
		left := ipallocator.NewIPAddress(netip.MustParseAddr("10.96.0.1"), ipallocator.Owner{Namespace: "default", Name: tc.owner})
		left.UID = "old"
		client := fake.NewClientset(left)
		// The API server's allocator: a create of a taken ClusterIP fails.
		client.PrependReactor("create", "services", func(action k8stesting.Action) (bool, runtime.Object, error) {
			svc := action.(k8stesting.CreateAction).GetObject().(*corev1.Service)
			if _, err := client.Tracker().Get(networkingv1.SchemeGroupVersion.WithResource("ipaddresses"), "", svc.Spec.ClusterIP); err == nil {
				return true, nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), svc.Name,
					field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs").Index(0), svc.Spec.ClusterIP, "provided IP is already allocated")})
			}
			return false, nil, nil
		})
		cfg := Config{ServiceIP: net.ParseIP("10.96.0.1"), ServicePort: 443, PublicIP: net.ParseIP("10.0.0.7"), PublicPort: 6443}
		clk := testingclock.NewFakeClock(time.Now())
		c := New(cfg, client, reconcilers.NewLease(client, reconcilers.NewFakeLeases(clk)), clk, func(context.Context) bool { return true })
		err := c.Sync(ctx)
		_, getErr := client.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
		if tc.reclaimed && (err != nil || getErr != nil) {
			t.Fatalf("IP held by the vanished kubernetes Service: sync %v, get %v", err, getErr)
		}
		if !tc.reclaimed && (err == nil || getErr == nil) {
			t.Fatalf("IP held by %s was taken: sync %v, get %v", tc.owner, err, getErr)
		}
	}
}
