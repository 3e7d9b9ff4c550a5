package integration

import (
	"net/netip"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svcplane/svcplane/test/integration/framework"
)

func policy(p corev1.IPFamilyPolicy) *corev1.IPFamilyPolicy { return &p }

// TestDualStackAndTypeChanges runs a dual-stack server (IPv6 range a /64,
// as IPAddress mode allows) and checks family defaulting, dual-stack
// upgrade and downgrade, headless Services and type changes.
func TestDualStackAndTypeChanges(t *testing.T) {
	skipShort(t)
	s, err := framework.StartWith("", func(o *framework.Options) {
		o.ServiceClusterIPRange = "10.97.0.0/16,fd00:97::/64"
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	svcs := s.Client.CoreV1().Services("default")
	port := []corev1.ServicePort{{Port: 80}}

	single := get(svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "single"},
		Spec: corev1.ServiceSpec{Ports: port}}, metav1.CreateOptions{}))(t)
	if *single.Spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack || len(single.Spec.ClusterIPs) != 1 ||
		single.Spec.IPFamilies[0] != corev1.IPv4Protocol || !netip.MustParsePrefix("10.97.0.0/16").Contains(netip.MustParseAddr(single.Spec.ClusterIP)) {
		t.Fatalf("single-stack defaults: %+v", single.Spec)
	}
	dual := get(svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "dual"},
		Spec: corev1.ServiceSpec{Ports: port, IPFamilyPolicy: policy(corev1.IPFamilyPolicyPreferDualStack)}}, metav1.CreateOptions{}))(t)
	if len(dual.Spec.ClusterIPs) != 2 || dual.Spec.IPFamilies[1] != corev1.IPv6Protocol ||
		!netip.MustParsePrefix("fd00:97::/64").Contains(netip.MustParseAddr(dual.Spec.ClusterIPs[1])) {
		t.Fatalf("PreferDualStack: %+v", dual.Spec)
	}
	v6 := get(svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "v6"},
		Spec: corev1.ServiceSpec{Ports: port, IPFamilies: []corev1.IPFamily{corev1.IPv6Protocol}}}, metav1.CreateOptions{}))(t)
	if len(v6.Spec.ClusterIPs) != 1 || !strings.Contains(v6.Spec.ClusterIP, ":") {
		t.Fatalf("IPv6 single stack: %+v", v6.Spec)
	}

	// Upgrade single → dual, then downgrade: the secondary IP is allocated,
	// then released.
	single.Spec.IPFamilyPolicy = policy(corev1.IPFamilyPolicyRequireDualStack)
	up := get(svcs.Update(ctx, single, metav1.UpdateOptions{}))(t)
	if len(up.Spec.ClusterIPs) != 2 || up.Spec.ClusterIPs[0] != single.Spec.ClusterIP {
		t.Fatalf("upgrade: %+v", up.Spec)
	}
	secondary := up.Spec.ClusterIPs[1]
	get(s.Client.NetworkingV1().IPAddresses().Get(ctx, secondary, metav1.GetOptions{}))(t)
	up.Spec.IPFamilyPolicy = policy(corev1.IPFamilyPolicySingleStack)
	down := get(svcs.Update(ctx, up, metav1.UpdateOptions{}))(t)
	if len(down.Spec.ClusterIPs) != 1 || len(down.Spec.IPFamilies) != 1 {
		t.Fatalf("downgrade: %+v", down.Spec)
	}
	if _, err := s.Client.NetworkingV1().IPAddresses().Get(ctx, secondary, metav1.GetOptions{}); err == nil {
		t.Fatalf("secondary IP %s not released after the downgrade", secondary)
	}

	// Headless gets no IP; ExternalName gets none and gives its IP back.
	headless := get(svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "headless"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: map[string]string{"a": "b"}, Ports: port}}, metav1.CreateOptions{}))(t)
	if headless.Spec.ClusterIP != corev1.ClusterIPNone || len(headless.Spec.ClusterIPs) != 1 {
		t.Fatalf("headless: %+v", headless.Spec)
	}
	ip := v6.Spec.ClusterIP
	v6.Spec.Type, v6.Spec.ExternalName = corev1.ServiceTypeExternalName, "example.com"
	ext := get(svcs.Update(ctx, v6, metav1.UpdateOptions{}))(t)
	if ext.Spec.ClusterIP != "" || len(ext.Spec.ClusterIPs) != 0 || ext.Spec.IPFamilies != nil {
		t.Fatalf("ExternalName keeps IP fields: %+v", ext.Spec)
	}
	if _, err := s.Client.NetworkingV1().IPAddresses().Get(ctx, ip, metav1.GetOptions{}); err == nil {
		t.Fatalf("IP %s not released when the Service became ExternalName", ip)
	}
	ext.Spec.Type, ext.Spec.ExternalName = corev1.ServiceTypeNodePort, ""
	back := get(svcs.Update(ctx, ext, metav1.UpdateOptions{}))(t)
	if back.Spec.ClusterIP == "" || back.Spec.Ports[0].NodePort == 0 {
		t.Fatalf("ExternalName → NodePort: %+v", back.Spec)
	}
	// NodePort → ClusterIP gives the port back.
	np := back.Spec.Ports[0].NodePort
	back.Spec.Type = corev1.ServiceTypeClusterIP
	cip := get(svcs.Update(ctx, back, metav1.UpdateOptions{}))(t)
	if cip.Spec.Ports[0].NodePort != 0 {
		t.Fatalf("ClusterIP keeps nodePort %d", cip.Spec.Ports[0].NodePort)
	}
	get(svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "takes-port"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80, NodePort: np}}}}, metav1.CreateOptions{}))(t)
}

// TestRequireDualStackOnSingleStack checks upstream's refusal.
func TestRequireDualStackOnSingleStack(t *testing.T) {
	skipShort(t)
	_, err := server.Client.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "needs-dual"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}, IPFamilyPolicy: policy(corev1.IPFamilyPolicyRequireDualStack)}}, metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "spec.ipFamilyPolicy: Invalid value: \"RequireDualStack\": this cluster is not configured for dual-stack services") {
		t.Fatalf("got %v", err)
	}
}

// TestServiceWithFinalizerReleasesOnFinalDelete: a Service with a finalizer
// keeps its IP while terminating and gives it back when the finalizer goes.
func TestServiceWithFinalizerReleasesOnFinalDelete(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	svc := get(c.CoreV1().Services(ns).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{"svcplane.io/test"}},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{}))(t)
	noErr(t, c.CoreV1().Services(ns).Delete(ctx, "held", metav1.DeleteOptions{}))
	ipExists := func() bool {
		_, err := c.NetworkingV1().IPAddresses().Get(ctx, svc.Spec.ClusterIP, metav1.GetOptions{})
		return err == nil
	}
	if !ipExists() {
		t.Fatal("a terminating Service lost its IP before its finalizers were removed")
	}
	cur := get(c.CoreV1().Services(ns).Get(ctx, "held", metav1.GetOptions{}))(t)
	cur.Finalizers = nil
	get(c.CoreV1().Services(ns).Update(ctx, cur, metav1.UpdateOptions{}))(t)
	if ipExists() {
		t.Fatal("IP not released when the last finalizer went")
	}
	get(c.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "reuse"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, ClusterIP: svc.Spec.ClusterIP,
			Ports: []corev1.ServicePort{{Port: 80, NodePort: svc.Spec.Ports[0].NodePort}}}}, metav1.CreateOptions{}))(t)
}
