package proxytest

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// ProxyConfig is the part of the proxy configuration scenarios vary.
type ProxyConfig struct {
	ClusterCIDR   string // "" = none
	MasqueradeAll bool
}

// Check is one packet and its expected fate.
type Check struct {
	Packet
	Want Fate
}

// Scenario is one entry of the shared table.
type Scenario struct {
	Name    string
	Config  ProxyConfig
	Objects []runtime.Object
	Checks  []Check
}

func tcp(src, dst string, port int) Packet {
	return Packet{Src: src, Dst: dst, Proto: "tcp", Port: port}
}
func fromNode(p Packet) Packet { p.FromNode = true; return p }

var std = ProxyConfig{ClusterCIDR: PodCIDR}

// Scenarios is the table every backend runs.
func Scenarios() []Scenario {
	const a, b, c = "10.244.1.2:8080", "10.244.2.3:8080", "10.244.1.4:8080"
	web := func(mut ...func(*v1.Service)) runtime.Object { return Svc("web", "10.96.0.10", 80, mut...) }
	twoEps := Slice("web", 8080, "10.244.1.2@"+NodeName, "10.244.2.3@"+OtherNode)
	local := func(s *v1.Service) { s.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyLocal }
	return []Scenario{
		{Name: "clusterip spreads, masquerades only from outside the cluster CIDR", Config: std,
			Objects: []runtime.Object{web(), twoEps},
			Checks: []Check{
				{tcp(LocalPodIP, "10.96.0.10", 80), To(a, b)},
				{fromNode(tcp(NodeIP, "10.96.0.10", 80)), To(a, b).Masq()},
				{tcp(LocalPodIP, "10.96.0.10", 81), Fate{Verdict: Accept}},
			}},
		{Name: "masqueradeAll masquerades pod traffic too", Config: ProxyConfig{ClusterCIDR: PodCIDR, MasqueradeAll: true},
			Objects: []runtime.Object{web(), twoEps},
			Checks:  []Check{{tcp(LocalPodIP, "10.96.0.10", 80), To(a, b).Masq()}}},
		{Name: "hairpin: an endpoint reaching itself is masqueraded", Config: std,
			Objects: []runtime.Object{web(), Slice("web", 8080, "10.244.1.2@"+NodeName)},
			Checks:  []Check{{tcp("10.244.1.2", "10.96.0.10", 80), To(a).Masq()}}},
		{Name: "no endpoints rejects on every destination", Config: std,
			Objects: []runtime.Object{web(NodePort(30080))},
			Checks: []Check{
				{tcp(LocalPodIP, "10.96.0.10", 80), Fate{Verdict: Reject}},
				{tcp(OutsideIP, NodeIP, 30080), Fate{Verdict: Reject}},
				{fromNode(tcp(NodeIP, "10.96.0.10", 80)), Fate{Verdict: Reject}},
			}},
		{Name: "nodeport with Cluster policy masquerades, not on loopback", Config: std,
			Objects: []runtime.Object{web(NodePort(30080)), twoEps},
			Checks: []Check{
				{tcp(OutsideIP, NodeIP, 30080), To(a, b).Masq()},
				{fromNode(tcp(NodeIP, NodeIP, 30080)), To(a, b).Masq()},
				{fromNode(tcp("127.0.0.1", "127.0.0.1", 30080)), Fate{Verdict: Accept}},
			}},
		{Name: "externalTrafficPolicy Local: local endpoints, client IP kept", Config: std,
			Objects: []runtime.Object{web(NodePort(30080), local), twoEps},
			Checks: []Check{
				{tcp(OutsideIP, NodeIP, 30080), To(a)},
				{tcp(LocalPodIP, "10.96.0.10", 80), To(a, b)},
			}},
		{Name: "externalTrafficPolicy Local without local endpoints drops external traffic", Config: std,
			Objects: []runtime.Object{web(NodePort(30080), local), Slice("web", 8080, "10.244.2.3@"+OtherNode)},
			Checks: []Check{
				{tcp(OutsideIP, NodeIP, 30080), Fate{Verdict: Drop}},
				{tcp(LocalPodIP, "10.96.0.10", 80), To(b)},
			}},
		{Name: "internalTrafficPolicy Local", Config: std,
			Objects: []runtime.Object{
				web(func(s *v1.Service) { s.Spec.InternalTrafficPolicy = ptr.To(v1.ServiceInternalTrafficPolicyLocal) }), twoEps,
				Svc("remote", "10.96.0.11", 80, func(s *v1.Service) {
					s.Spec.InternalTrafficPolicy = ptr.To(v1.ServiceInternalTrafficPolicyLocal)
				}), Slice("remote", 8080, "10.244.2.3@"+OtherNode)},
			Checks: []Check{
				{tcp(LocalPodIP, "10.96.0.10", 80), To(a)},
				{tcp(LocalPodIP, "10.96.0.11", 80), Fate{Verdict: Drop}},
			}},
		{Name: "terminating endpoints are used only when none is ready", Config: std,
			Objects: []runtime.Object{web(), Slice("web", 8080, "10.244.1.2@"+NodeName+",t", "10.244.2.3@"+OtherNode+",n"),
				Svc("mixed", "10.96.0.12", 80), Slice("mixed", 8080, "10.244.1.2@"+NodeName+",t", "10.244.1.4@"+NodeName)},
			Checks: []Check{
				{tcp(LocalPodIP, "10.96.0.10", 80), To(a)},
				{tcp(LocalPodIP, "10.96.0.12", 80), To(c)},
			}},
		{Name: "zone hints narrow to this zone", Config: std,
			Objects: []runtime.Object{web(), Slice("web", 8080, "10.244.1.2@"+NodeName+",z="+NodeZone, "10.244.2.3@"+OtherNode+",z=zone-b")},
			Checks:  []Check{{tcp(LocalPodIP, "10.96.0.10", 80), To(a)}}},
		{Name: "external IPs and load-balancer IPs with source ranges", Config: std,
			Objects: []runtime.Object{web(func(s *v1.Service) {
				s.Spec.Type = v1.ServiceTypeLoadBalancer
				s.Spec.Ports[0].NodePort = 30080
				s.Spec.ExternalIPs = []string{"192.0.2.10"}
				s.Spec.LoadBalancerSourceRanges = []string{"203.0.113.0/24"}
				s.Status.LoadBalancer.Ingress = []v1.LoadBalancerIngress{{IP: "192.0.2.20"}}
			}), twoEps},
			Checks: []Check{
				{tcp(OutsideIP, "192.0.2.10", 80), To(a, b).Masq()},
				{tcp(OutsideIP, "192.0.2.20", 80), To(a, b).Masq()},
				{tcp("198.51.100.7", "192.0.2.20", 80), Fate{Verdict: Drop}},
			}},
		{Name: "ClientIP affinity sticks to one endpoint", Config: std,
			Objects: []runtime.Object{web(func(s *v1.Service) {
				s.Spec.SessionAffinity = v1.ServiceAffinityClientIP
				s.Spec.SessionAffinityConfig = &v1.SessionAffinityConfig{ClientIP: &v1.ClientIPConfig{TimeoutSeconds: ptr.To[int32](60)}}
			}), twoEps},
			Checks: []Check{{tcp(LocalPodIP, "10.96.0.10", 80), To(a, b).Stick()}}},
		{Name: "UDP ports are proxied by protocol", Config: std,
			Objects: []runtime.Object{web(func(s *v1.Service) { s.Spec.Ports[0].Protocol = v1.ProtocolUDP }),
				func() runtime.Object {
					s := Slice("web", 8080, "10.244.1.2@"+NodeName)
					s.Ports[0].Protocol = ptr.To(v1.ProtocolUDP)
					return s
				}()},
			Checks: []Check{
				{Packet{Src: LocalPodIP, Dst: "10.96.0.10", Proto: "udp", Port: 80}, To(a)},
				{tcp(LocalPodIP, "10.96.0.10", 80), Fate{Verdict: Accept}},
			}},
		{Name: "headless and ExternalName Services are not proxied", Config: std,
			Objects: []runtime.Object{
				Svc("headless", "None", 80), Slice("headless", 8080, "10.244.1.2@"+NodeName),
				Svc("ext", "10.96.0.13", 80, func(s *v1.Service) { s.Spec.Type = v1.ServiceTypeExternalName }),
			},
			Checks: []Check{{tcp(LocalPodIP, "10.96.0.13", 80), Fate{Verdict: Accept}}}},
	}
}
