package dns

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	mdns "github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

// TestFeed: the informers (their store holding compact slices) keep the
// index equal to the cluster: a headless Service's ready endpoints and
// hostnames answer, and an update or deletion of its EndpointSlice
// changes the answer.
func TestFeed(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	es := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db-1",
		Labels: map[string]string{discoveryv1.LabelServiceName: "db"}}, AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{
			{Addresses: []string{"10.244.0.1"}, Hostname: ptr.To("DB-0")},
			{Addresses: []string{"10.244.0.2"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(false)}},
			{Addresses: []string{"10.244.0.3"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}},
		}}
	client := fake.NewClientset(
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db"}, Spec: corev1.ServiceSpec{ClusterIP: "None"}}, es)
	x := NewIndex()
	if err := Feed(ctx, client, x); err != nil {
		t.Fatal(err)
	}
	s := NewServer(NewResolver(x, "cluster.local", 5*time.Second), nil, nil)
	answer := func(name string, qtype uint16) string {
		req := new(mdns.Msg)
		req.SetQuestion(name, qtype)
		resp, _ := s.Handle(ctx, req, "udp")
		var parts []string
		for _, rr := range resp.Answer {
			switch rr := rr.(type) {
			case *mdns.A:
				parts = append(parts, rr.A.String())
			case *mdns.SRV:
				parts = append(parts, rr.Target)
			}
		}
		slices.Sort(parts) // the answer lists them by hostname
		return mdns.RcodeToString[resp.Rcode] + " " + strings.Join(parts, ",")
	}
	if got, want := answer("db.ns.svc.cluster.local.", mdns.TypeA), "NOERROR 10.244.0.1,10.244.0.3"; got != want {
		t.Errorf("headless A: %q, want %q", got, want)
	}
	if got, want := answer("db-0.db.ns.svc.cluster.local.", mdns.TypeA), "NOERROR 10.244.0.1"; got != want {
		t.Errorf("hostname A: %q, want %q", got, want)
	}
	waitFor := func(what, name, want string) {
		t.Helper()
		var got string
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			got = answer(name, mdns.TypeA)
			return got == want, nil
		})
		if err != nil {
			t.Errorf("%s: %s answers %q, want %q", what, name, got, want)
		}
	}
	es = es.DeepCopy()
	es.Endpoints[1].Conditions.Ready = ptr.To(true)
	if _, err := client.DiscoveryV1().EndpointSlices("ns").Update(ctx, es, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("an endpoint turned ready", "db.ns.svc.cluster.local.", "NOERROR 10.244.0.1,10.244.0.2,10.244.0.3")
	if err := client.DiscoveryV1().EndpointSlices("ns").Delete(ctx, "db-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("the slice deleted", "db.ns.svc.cluster.local.", "NXDOMAIN ")
}
