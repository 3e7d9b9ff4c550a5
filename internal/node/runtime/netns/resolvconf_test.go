package netns

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestResolvConf(t *testing.T) {
	host := []byte("# generated\nnameserver 192.0.2.53\nsearch corp.example\noptions edns0\n")
	d := DNS{ClusterDNS: []string{"10.96.0.10"}, ClusterDomain: "cluster.local", Host: host}
	pod := func(policy corev1.DNSPolicy, hostNet bool, cfg *corev1.PodDNSConfig) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop"},
			Spec: corev1.PodSpec{DNSPolicy: policy, HostNetwork: hostNet, DNSConfig: cfg}}
	}
	for name, tc := range map[string]struct {
		dns  DNS
		pod  *corev1.Pod
		want string
	}{
		"ClusterFirst": {d, pod(corev1.DNSClusterFirst, false, nil),
			"search shop.svc.cluster.local svc.cluster.local cluster.local corp.example\nnameserver 10.96.0.10\noptions ndots:5\n"},
		"empty policy is ClusterFirst": {d, pod("", false, nil),
			"search shop.svc.cluster.local svc.cluster.local cluster.local corp.example\nnameserver 10.96.0.10\noptions ndots:5\n"},
		"ClusterFirst on the host's network is Default": {d, pod(corev1.DNSClusterFirst, true, nil),
			"search corp.example\nnameserver 192.0.2.53\noptions edns0\n"},
		"ClusterFirstWithHostNet": {d, pod(corev1.DNSClusterFirstWithHostNet, true, nil),
			"search shop.svc.cluster.local svc.cluster.local cluster.local corp.example\nnameserver 10.96.0.10\noptions ndots:5\n"},
		"Default": {d, pod(corev1.DNSDefault, false, nil),
			"search corp.example\nnameserver 192.0.2.53\noptions edns0\n"},
		"no cluster DNS: ClusterFirst falls back to the host's": {DNS{ClusterDomain: "cluster.local", Host: host}, pod(corev1.DNSClusterFirst, false, nil),
			"search corp.example\nnameserver 192.0.2.53\noptions edns0\n"},
		"None with dnsConfig": {d, pod(corev1.DNSNone, false, &corev1.PodDNSConfig{Nameservers: []string{"1.2.3.4"}, Searches: []string{"a.b"},
			Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptr.To("2")}}}),
			"search a.b\nnameserver 1.2.3.4\noptions ndots:2\n"},
		"dnsConfig appends and overrides options by name": {d, pod(corev1.DNSClusterFirst, false, &corev1.PodDNSConfig{Nameservers: []string{"10.96.0.10", "1.1.1.1"},
			Searches: []string{"cluster.local", "x.y"}, Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptr.To("1")}, {Name: "rotate"}}}),
			"search shop.svc.cluster.local svc.cluster.local cluster.local corp.example x.y\nnameserver 10.96.0.10\nnameserver 1.1.1.1\noptions ndots:1 rotate\n"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := string(tc.dns.resolvConf(tc.pod)); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
