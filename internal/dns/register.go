package dns

import (
	"context"
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	discoveryv1ac "k8s.io/client-go/applyconfigurations/discovery/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/client-go/kubernetes"
)

// fieldManager owns what Register writes (server-side apply).
const fieldManager = "svcplane-dns"

// Registration is where the cluster finds this DNS server: the kube-dns
// Service's cluster IP and the address the server listens on.
type Registration struct {
	// ClusterIP of kube-system/kube-dns (by convention the tenth address
	// of the service range: TenthAddress).
	ClusterIP netip.Addr
	// Endpoint is the address:port the DNS server listens on (its UDP and
	// TCP port); MetricsPort, when not 0, its metrics port on the same
	// address.
	Endpoint    netip.AddrPort
	MetricsPort uint16
	// Client writes the registration (an administrator's, as kubeadm
	// applies the DNS add-on); nil is the DNS's own client.
	Client kubernetes.Interface
}

// TenthAddress is the tenth address of prefix (10.96.0.10 in
// 10.96.0.0/12), where kubeadm puts the cluster DNS.
func TenthAddress(prefix netip.Prefix) (netip.Addr, error) {
	a := prefix.Masked().Addr()
	for range 10 {
		a = a.Next()
	}
	if !prefix.Contains(a) {
		return netip.Addr{}, fmt.Errorf("the service range %s has no tenth address for the cluster DNS", prefix)
	}
	return a, nil
}

// Register applies, as kubeadm's DNS add-on has them, the DNS's identity
// (ServiceAccount kube-system/coredns, bound to ClusterRole
// system:coredns: list and watch Services, Endpoints, EndpointSlices,
// pods and namespaces), the kube-dns Service
// (no selector; ports dns 53/UDP, dns-tcp 53/TCP and metrics 9153/TCP),
// and its Endpoints (skipped by the mirroring controller) and
// EndpointSlice pointing at reg.Endpoint (none for a loopback address,
// which endpoints may not hold). Idempotent; a kube-dns Service
// made by someone else with another cluster IP is an error (cluster IPs
// are immutable).
func Register(ctx context.Context, client kubernetes.Interface, reg Registration) error {
	ns, name := DNSService.Namespace, DNSService.Name
	target := int32(reg.Endpoint.Port())
	type svcPort struct {
		name     string
		proto    corev1.Protocol
		port, to int32
	}
	ports := []svcPort{{"dns", corev1.ProtocolUDP, 53, target}, {"dns-tcp", corev1.ProtocolTCP, 53, target}}
	if reg.MetricsPort != 0 {
		ports = append(ports, svcPort{"metrics", corev1.ProtocolTCP, 9153, int32(reg.MetricsPort)})
	}
	labels := map[string]string{"k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true", "kubernetes.io/name": "svcplane-dns"}
	svc := corev1ac.Service(name, ns).WithLabels(labels).
		WithAnnotations(map[string]string{"prometheus.io/port": "9153", "prometheus.io/scrape": "true"}).
		WithSpec(corev1ac.ServiceSpec().WithClusterIP(reg.ClusterIP.String()))
	eps := corev1ac.EndpointSubset().WithAddresses(corev1ac.EndpointAddress().WithIP(reg.Endpoint.Addr().String()))
	addrType := discoveryv1.AddressTypeIPv4
	if reg.Endpoint.Addr().Is6() {
		addrType = discoveryv1.AddressTypeIPv6
	}
	slice := discoveryv1ac.EndpointSlice(name, ns).WithAddressType(addrType).
		WithLabels(map[string]string{discoveryv1.LabelServiceName: name, discoveryv1.LabelManagedBy: fieldManager}).
		WithEndpoints(discoveryv1ac.Endpoint().WithAddresses(reg.Endpoint.Addr().String()).
			WithConditions(discoveryv1ac.EndpointConditions().WithReady(true).WithServing(true).WithTerminating(false)))
	for _, p := range ports {
		svc.Spec.WithPorts(corev1ac.ServicePort().WithName(p.name).WithProtocol(p.proto).WithPort(p.port).WithTargetPort(intstr.FromInt32(p.to)))
		eps.WithPorts(corev1ac.EndpointPort().WithName(p.name).WithProtocol(p.proto).WithPort(p.to))
		slice.WithPorts(discoveryv1ac.EndpointPort().WithName(p.name).WithProtocol(p.proto).WithPort(p.to))
	}
	opts := metav1.ApplyOptions{FieldManager: fieldManager, Force: true}
	if err := applyIdentity(ctx, client, opts); err != nil {
		return err
	}
	if _, err := client.CoreV1().Services(ns).Apply(ctx, svc, opts); err != nil {
		return fmt.Errorf("applying Service %s/%s: %w", ns, name, err)
	}
	if reg.Endpoint.Addr().IsLoopback() {
		return nil // endpoints may not hold loopback addresses (Run says so)
	}
	ep := corev1ac.Endpoints(name, ns).WithLabels(map[string]string{discoveryv1.LabelSkipMirror: "true"}).WithSubsets(eps)
	if _, err := client.CoreV1().Endpoints(ns).Apply(ctx, ep, opts); err != nil {
		return fmt.Errorf("applying Endpoints %s/%s: %w", ns, name, err)
	}
	if _, err := client.DiscoveryV1().EndpointSlices(ns).Apply(ctx, slice, opts); err != nil {
		return fmt.Errorf("applying EndpointSlice %s/%s: %w", ns, name, err)
	}
	return nil
}

// Identity is the DNS's ServiceAccount, as kubeadm's CoreDNS add-on.
var Identity = struct{ Namespace, Name, ClusterRole string }{"kube-system", "coredns", "system:coredns"}

// applyIdentity applies kubeadm's CoreDNS ServiceAccount, its
// system:coredns ClusterRole and their ClusterRoleBinding.
func applyIdentity(ctx context.Context, client kubernetes.Interface, opts metav1.ApplyOptions) error {
	sa := corev1ac.ServiceAccount(Identity.Name, Identity.Namespace)
	if _, err := client.CoreV1().ServiceAccounts(Identity.Namespace).Apply(ctx, sa, opts); err != nil {
		return fmt.Errorf("applying ServiceAccount %s/%s: %w", Identity.Namespace, Identity.Name, err)
	}
	role := rbacv1ac.ClusterRole(Identity.ClusterRole).WithRules(
		rbacv1ac.PolicyRule().WithAPIGroups("").WithResources("endpoints", "services", "pods", "namespaces").WithVerbs("list", "watch"),
		rbacv1ac.PolicyRule().WithAPIGroups("discovery.k8s.io").WithResources("endpointslices").WithVerbs("list", "watch"))
	if _, err := client.RbacV1().ClusterRoles().Apply(ctx, role, opts); err != nil {
		return fmt.Errorf("applying ClusterRole %s: %w", Identity.ClusterRole, err)
	}
	binding := rbacv1ac.ClusterRoleBinding(Identity.ClusterRole).
		WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName(Identity.ClusterRole)).
		WithSubjects(rbacv1ac.Subject().WithKind(rbacv1.ServiceAccountKind).WithName(Identity.Name).WithNamespace(Identity.Namespace))
	if _, err := client.RbacV1().ClusterRoleBindings().Apply(ctx, binding, opts); err != nil {
		return fmt.Errorf("applying ClusterRoleBinding %s: %w", Identity.ClusterRole, err)
	}
	return nil
}
