package app

import (
	"context"
	"net"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/proxy"
)

// detectFamilies: both families when the cluster CIDRs or the Node's
// addresses span both (dual-stack: one backend each); otherwise the
// family of the node's primary address; IPv4 when nothing tells.
func detectFamilies(ctx context.Context, cfg *Config, client kubernetes.Interface, nodeName string) ([]proxy.IPFamily, error) {
	cidrs, err := cfg.ClusterCIDRs()
	if err != nil {
		return nil, err
	}
	var addrs []string
	for _, p := range cidrs {
		addrs = append(addrs, p.Addr().String())
	}
	getCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if node, err := client.CoreV1().Nodes().Get(getCtx, nodeName, metav1.GetOptions{}); err == nil {
		for _, a := range node.Status.Addresses {
			addrs = append(addrs, a.Address)
		}
	} else {
		klog.InfoS("Cannot read the node to detect its IP families", "node", nodeName, "err", err)
	}
	return familiesOf(addrs), nil
}

// familiesOf returns the families of the parseable addresses, the first
// one's family first; [IPv4] when there are none.
func familiesOf(addrs []string) []proxy.IPFamily {
	var out []proxy.IPFamily
	for _, s := range addrs {
		ip := net.ParseIP(s)
		if ip == nil {
			continue
		}
		f := proxy.IPv6
		if ip.To4() != nil {
			f = proxy.IPv4
		}
		if len(out) == 0 || (len(out) == 1 && out[0] != f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return []proxy.IPFamily{proxy.IPv4}
	}
	return out
}
