package service

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svcplane/svcplane/internal/allocator/bitmap"
	"github.com/svcplane/svcplane/internal/allocator/ipallocator"
	"github.com/svcplane/svcplane/internal/allocator/portallocator"
	"github.com/svcplane/svcplane/internal/allocator/rangestore"
)

// deadlineDuringPorts is a NodePort map whose write outlives the request:
// the request's context ends while it waits, and it fails with the
// context's error, as a queued rangestore.Etcd caller does.
type deadlineDuringPorts struct {
	rangestore.Interface
	cancel context.CancelFunc
}

func (d deadlineDuringPorts) Update(ctx context.Context, _ func(*bitmap.Bitmap) error) error {
	d.cancel()
	return ctx.Err()
}

// TestCreateGivesBackClusterIPWhenNodePortsTimeOut: a create whose request
// ends while its NodePorts are allocated gives back the ClusterIP it had
// already taken, although its own context is done.
func TestCreateGivesBackClusterIPWhenNodePortsTimeOut(t *testing.T) {
	r, err := ipallocator.NewRange(netip.MustParsePrefix("10.0.0.0/24"), 64)
	if err != nil {
		t.Fatal(err)
	}
	ips := ipallocator.NewFakeStore()
	ctx, cancel := context.WithCancel(context.Background())
	ports, _ := portallocator.ParseRange("30000-30099")
	al := &Allocators{
		IPs: map[corev1.IPFamily]ipallocator.Interface{
			corev1.IPv4Protocol: ipallocator.NewIPAddressAllocator(corev1.IPv4Protocol, ips, func() []*ipallocator.Range { return []*ipallocator.Range{r} }),
		},
		DefaultFamily: corev1.IPv4Protocol,
		NodePorts:     portallocator.New(ports, deadlineDuringPorts{rangestore.NewMemory(100), cancel}),
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80}}}}
	Default(svc)
	if _, err := al.BeginCreate(ctx, svc, &metav1.CreateOptions{}); err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
		t.Fatalf("BeginCreate: %v, want the context's error", err)
	}
	if svc.Spec.ClusterIP == "" {
		t.Fatal("no ClusterIP was taken before the NodePorts; the test checks nothing")
	}
	if held := ips.Names(); len(held) != 0 {
		t.Fatalf("IPAddresses %v still held after the create failed", held)
	}
}
