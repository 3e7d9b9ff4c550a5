package dns

import (
	"context"
	"net/netip"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes/fake"
)

// TestRegister: kube-dns as kubeadm has it, idempotent, pointing at the
// server; no endpoints for a loopback address.
func TestRegister(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientset()
	reg := Registration{ClusterIP: netip.MustParseAddr("10.96.0.10"), Endpoint: netip.MustParseAddrPort("10.0.0.5:1053"), MetricsPort: 9153}
	for range 2 {
		if err := Register(ctx, c, reg); err != nil {
			t.Fatal(err)
		}
	}
	svc, err := c.CoreV1().Services("kube-system").Get(ctx, "kube-dns", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Spec.ClusterIP != "10.96.0.10" || len(svc.Spec.Ports) != 3 || svc.Spec.Ports[0].TargetPort.IntValue() != 1053 ||
		svc.Labels["k8s-app"] != "kube-dns" || svc.Spec.Selector != nil {
		t.Errorf("Service: %+v", svc)
	}
	ep, err := c.CoreV1().Endpoints("kube-system").Get(ctx, "kube-dns", metav1.GetOptions{})
	if err != nil || ep.Labels[discoveryv1.LabelSkipMirror] != "true" || ep.Subsets[0].Addresses[0].IP != "10.0.0.5" {
		t.Errorf("Endpoints: %+v %v", ep, err)
	}
	es, err := c.DiscoveryV1().EndpointSlices("kube-system").Get(ctx, "kube-dns", metav1.GetOptions{})
	if err != nil || es.Labels[discoveryv1.LabelServiceName] != "kube-dns" || *es.Ports[0].Port != 1053 || !*es.Endpoints[0].Conditions.Ready {
		t.Errorf("EndpointSlice: %+v %v", es, err)
	}

	crb, err := c.RbacV1().ClusterRoleBindings().Get(ctx, "system:coredns", metav1.GetOptions{})
	if err != nil || crb.RoleRef.Name != "system:coredns" || crb.Subjects[0].Kind != "ServiceAccount" || crb.Subjects[0].Namespace != "kube-system" || crb.Subjects[0].Name != "coredns" {
		t.Errorf("ClusterRoleBinding: %+v %v", crb, err)
	}
	role, err := c.RbacV1().ClusterRoles().Get(ctx, "system:coredns", metav1.GetOptions{})
	if err != nil || len(role.Rules) != 2 || role.Rules[1].Resources[0] != "endpointslices" {
		t.Errorf("ClusterRole: %+v %v", role, err)
	}
	if _, err := c.CoreV1().ServiceAccounts("kube-system").Get(ctx, "coredns", metav1.GetOptions{}); err != nil {
		t.Errorf("ServiceAccount: %v", err)
	}

	// The fake does not validate: the labels must be valid label values.
	for _, labels := range []map[string]string{svc.Labels, ep.Labels, es.Labels} {
		for k, v := range labels {
			if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
				t.Errorf("label %s=%s: %v", k, v, errs)
			}
		}
	}

	c = fake.NewClientset()
	reg.Endpoint = netip.MustParseAddrPort("127.0.0.1:53")
	if err := Register(ctx, c, reg); err != nil {
		t.Fatal(err)
	}
	if l, _ := c.CoreV1().Endpoints("kube-system").List(ctx, metav1.ListOptions{}); len(l.Items) != 0 {
		t.Errorf("loopback: Endpoints written: %+v", l.Items)
	}
}

func TestTenthAddress(t *testing.T) {
	for prefix, want := range map[string]string{"10.96.0.0/12": "10.96.0.10", "fd00:96::/108": "fd00:96::a", "10.0.0.0/29": ""} {
		got, err := TenthAddress(netip.MustParsePrefix(prefix))
		if (want == "") != (err != nil) || (err == nil && got.String() != want) {
			t.Errorf("%s: %v %v, want %q", prefix, got, err, want)
		}
	}
}
