package netns

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// DNS is the kubelet's cluster DNS settings (--cluster-dns,
// --cluster-domain) and the host's resolver configuration (--resolv-conf).
type DNS struct {
	// ClusterDNS are the cluster DNS's addresses (kube-dns's ClusterIP);
	// none: ClusterFirst pods fall back to the host's resolvers, as the
	// kubelet does.
	ClusterDNS []string
	// ClusterDomain is the cluster's DNS domain (cluster.local).
	ClusterDomain string
	// Host is the content of the host's resolv.conf.
	Host []byte
}

// resolvConf is what the kubelet writes as a pod's /etc/resolv.conf for its
// dnsPolicy and dnsConfig: ClusterFirst (and ClusterFirstWithHostNet on
// the host's network) uses the cluster DNS with the search path
// <ns>.svc.<domain> svc.<domain> <domain> before the host's, and ndots:5;
// Default (and ClusterFirst on the host's network) the host's file; None
// only dnsConfig. dnsConfig's nameservers and searches are appended
// (duplicates dropped) and its options override by name.
func (d DNS) resolvConf(pod *corev1.Pod) []byte {
	hostNS, hostSearch, hostOpts := parseResolvConf(d.Host)
	var ns, search, opts []string
	policy := pod.Spec.DNSPolicy
	if policy == "" {
		policy = corev1.DNSClusterFirst
	}
	clusterFirst := len(d.ClusterDNS) > 0 &&
		(policy == corev1.DNSClusterFirstWithHostNet || policy == corev1.DNSClusterFirst && !pod.Spec.HostNetwork)
	switch {
	case policy == corev1.DNSNone:
	case clusterFirst:
		ns = append(ns, d.ClusterDNS...)
		domain := strings.TrimSuffix(d.ClusterDomain, ".")
		search = append([]string{pod.Namespace + ".svc." + domain, "svc." + domain, domain}, hostSearch...)
		opts = []string{"ndots:5"}
	default:
		ns, search, opts = hostNS, hostSearch, hostOpts
	}
	if c := pod.Spec.DNSConfig; c != nil {
		for _, n := range c.Nameservers {
			if !slices.Contains(ns, n) {
				ns = append(ns, n)
			}
		}
		for _, s := range c.Searches {
			if !slices.Contains(search, s) {
				search = append(search, s)
			}
		}
		for _, o := range c.Options {
			opt := o.Name
			if o.Value != nil {
				opt += ":" + *o.Value
			}
			opts = slices.DeleteFunc(opts, func(s string) bool { return strings.SplitN(s, ":", 2)[0] == o.Name })
			opts = append(opts, opt)
		}
	}
	var b bytes.Buffer
	if len(search) > 0 {
		fmt.Fprintf(&b, "search %s\n", strings.Join(search, " "))
	}
	for _, n := range ns {
		fmt.Fprintf(&b, "nameserver %s\n", n)
	}
	if len(opts) > 0 {
		fmt.Fprintf(&b, "options %s\n", strings.Join(opts, " "))
	}
	return b.Bytes()
}

// parseResolvConf reads nameserver, search (domain too) and options lines.
func parseResolvConf(data []byte) (ns, search, opts []string) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") || strings.HasPrefix(f[0], ";") {
			continue
		}
		switch f[0] {
		case "nameserver":
			if len(f) > 1 {
				ns = append(ns, f[1])
			}
		case "search", "domain":
			search = f[1:]
		case "options":
			opts = append(opts, f[1:]...)
		}
	}
	return ns, search, opts
}
