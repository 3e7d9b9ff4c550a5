package plane

import (
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/svcplane/svcplane/internal/apiserver"
	"github.com/svcplane/svcplane/internal/kubeconfig"
	"github.com/svcplane/svcplane/internal/node/agent"
	"github.com/svcplane/svcplane/internal/node/runtime/netns"
)

// NetnsOptions are the netns runtime's settings (`svcplane node
// --runtime netns`; up fills them from its own).
type NetnsOptions struct {
	// HostAddress is the host bridge's address; node i gets address i+2
	// of its prefix as InternalIP.
	HostAddress string
	Bridge      string
	// ServiceCIDRs are routed from the host to the first node.
	ServiceCIDRs string
	// ProxyMode and ProxyKubeconfig start `svcplane proxy` in every node's
	// namespace (ProxyMode "none" or no kubeconfig: no proxies).
	ProxyMode, ProxyKubeconfig string
	// ClusterCIDR is handed to the proxies (off-cluster traffic to
	// Services is masqueraded).
	ClusterCIDR string
	// LogDir holds the proxies' logs (proxy-<node>.log); empty: none.
	LogDir string
	// ClusterDNS and ClusterDomain are the kubelet's --cluster-dns and
	// --cluster-domain: ClusterFirst pods' resolv.conf (no ClusterDNS:
	// the host's).
	ClusterDNS, ClusterDomain string
	// ResolvConf is the kubelet's --resolv-conf: the host's resolvers,
	// for Default pods and the search path's tail.
	ResolvConf string
	// UnpullableImages is a regular expression of images no registry
	// has (empty: every image runs).
	UnpullableImages string
}

func newNetnsOptions() NetnsOptions {
	return NetnsOptions{HostAddress: netns.DefaultHostAddress, Bridge: netns.DefaultBridge,
		ServiceCIDRs: "10.96.0.0/12", ProxyMode: ProxyNone, ClusterCIDR: "10.244.0.0/16",
		ClusterDomain: "cluster.local", ResolvConf: "/etc/resolv.conf"}
}

// addFlags registers the netns runtime's flags of `svcplane node`.
func (o *NetnsOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.HostAddress, "netns-host-address", o.HostAddress, "--runtime netns: the host bridge's address/prefix; node i gets address i+2 of the prefix as its InternalIP.")
	fs.StringVar(&o.Bridge, "netns-bridge", o.Bridge, "--runtime netns: the host bridge's name (removed at start if a crashed agent left it, and at stop).")
	fs.StringVar(&o.ServiceCIDRs, "service-cluster-ip-range", o.ServiceCIDRs, "--runtime netns: the Service CIDRs, routed from the host to the first node.")
	fs.StringVar(&o.ProxyMode, "proxy-mode", o.ProxyMode, "--runtime netns: run `svcplane proxy --proxy-mode <mode>` in every node's namespace (none: no proxies).")
	fs.StringVar(&o.ProxyKubeconfig, "proxy-kubeconfig", o.ProxyKubeconfig, "--runtime netns: the proxies' kubeconfig (its server must be reachable from the node namespaces, e.g. the host bridge's address).")
	fs.StringVar(&o.ClusterCIDR, "cluster-cidr", o.ClusterCIDR, "--runtime netns: the pods' CIDR, handed to the proxies.")
	fs.StringVar(&o.LogDir, "netns-log-dir", o.LogDir, "--runtime netns: directory for the proxies' logs (proxy-<node>.log); empty: discarded.")
	fs.StringVar(&o.ClusterDNS, "cluster-dns", o.ClusterDNS, "--runtime netns: the cluster DNS's IP address (the kubelet's --cluster-dns): ClusterFirst pods' nameserver; empty: they use the host's resolvers.")
	fs.StringVar(&o.ClusterDomain, "cluster-domain", o.ClusterDomain, "--runtime netns: the cluster's DNS domain (the kubelet's --cluster-domain), in ClusterFirst pods' search path.")
	o.addImageFlags(fs)
	fs.StringVar(&o.ResolvConf, "resolv-conf", o.ResolvConf, "--runtime netns: the host's resolver configuration (the kubelet's --resolv-conf), for dnsPolicy Default pods.")
}

// addImageFlags registers the flags `svcplane up` shares with node.
func (o *NetnsOptions) addImageFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.UnpullableImages, "unpullable-images", o.UnpullableImages, "--runtime netns: a regular expression of images no registry has (e.g. '^webserver:404$'): their containers wait in ErrImagePull/ImagePullBackOff as after a failed pull. The runtime pulls nothing, so every other image runs.")
}

// nodeIPs are the InternalIPs of n netns nodes: addresses 2… of the host
// bridge's prefix.
func (o *NetnsOptions) nodeIPs(n int) ([]string, netip.Prefix, error) {
	host, err := netip.ParsePrefix(o.HostAddress)
	if err != nil || !host.Addr().Is4() {
		return nil, host, fmt.Errorf("--netns-host-address %q: want an IPv4 address/prefix such as %s", o.HostAddress, netns.DefaultHostAddress)
	}
	ips, err := nodeAddresses(host.Masked().String(), n+1)
	if err != nil {
		return nil, host, fmt.Errorf("--netns-host-address %s is too small for %d nodes", host, n)
	}
	return ips[1:], host, nil
}

// runtime makes the netns runtime for the named nodes (their InternalIPs
// ips); client reads what host-process containers' environment refers to.
func (o *NetnsOptions) runtime(client kubernetes.Interface, names, ips []string, host netip.Prefix) (*netns.Runtime, error) {
	var unpullable *regexp.Regexp
	if o.UnpullableImages != "" {
		var err error
		if unpullable, err = regexp.Compile(o.UnpullableImages); err != nil {
			return nil, fmt.Errorf("--unpullable-images %q: %w", o.UnpullableImages, err)
		}
	}
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("--runtime netns needs root (it makes network namespaces, links and routes)")
	}
	var svc []netip.Prefix
	for _, s := range strings.Split(o.ServiceCIDRs, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("--service-cluster-ip-range %q: %w", o.ServiceCIDRs, err)
		}
		svc = append(svc, p.Masked())
	}
	cfg := netns.Config{Client: client, Bridge: o.Bridge, HostAddress: host, ServiceCIDRs: svc, NodeIPs: map[string]string{}}
	dns, err := o.dns()
	if err != nil {
		return nil, err
	}
	cfg.DNS = dns
	cfg.UnpullableImages = unpullable
	for i, n := range names {
		cfg.NodeIPs[n] = ips[i]
	}
	if o.ProxyMode != ProxyNone && o.ProxyKubeconfig != "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cfg.Proxy = func(node string) netns.ProxyProcess {
			pp := netns.ProxyProcess{Argv: []string{exe, "proxy", "--kubeconfig", o.ProxyKubeconfig,
				"--hostname-override", node, "--proxy-mode", o.ProxyMode, "--cluster-cidr", o.ClusterCIDR}}
			if o.LogDir != "" {
				pp.Log = filepath.Join(o.LogDir, "proxy-"+node+".log")
			}
			return pp
		}
	}
	return netns.New(cfg)
}

// netnsAgentConfig switches ac to the netns runtime; the caller closes
// the runtime once the agent has stopped.
func (o *NodeOptions) netnsAgentConfig(ac *agent.Config, names []string) (*netns.Runtime, error) {
	ips, host, err := o.Netns.nodeIPs(len(names))
	if err != nil {
		return nil, err
	}
	rt, err := o.Netns.runtime(ac.Client, names, ips, host)
	if err != nil {
		return nil, err
	}
	ac.InternalIPs, ac.Runtime, ac.RuntimeName = ips, rt, "netns"
	return rt, nil
}

// writeNetnsProxyKubeconfig writes the node proxies' kubeconfig: kube-proxy's
// identity (system:kube-proxy), the server reached at the host bridge's
// address from inside the node namespaces, verified as "kubernetes" (a name
// on the serving certificate).
func (p *Plane) writeNetnsProxyKubeconfig(path string) error {
	host, err := netip.ParsePrefix(p.Options.Netns.HostAddress)
	if err != nil {
		return fmt.Errorf("--netns-host-address %q: %w", p.Options.Netns.HostAddress, err)
	}
	u, err := url.Parse(p.Server.URL)
	if err != nil {
		return err
	}
	cert, key, err := p.Server.CA().EnsureClient(p.Options.PKIDir(), "kube-proxy", apiserver.UserKubeProxy, nil)
	if err != nil {
		return err
	}
	server := "https://" + netip.AddrPortFrom(host.Addr(), mustPort(u.Port())).String()
	if err := kubeconfig.Write(path, kubeconfig.Config{Server: server, CAFile: p.Server.CA().CertFile,
		User: apiserver.UserKubeProxy, CertFile: cert, KeyFile: key}); err != nil {
		return err
	}
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return err
	}
	for _, c := range cfg.Clusters {
		c.TLSServerName = "kubernetes"
	}
	return clientcmd.WriteToFile(*cfg, path)
}

func mustPort(s string) uint16 {
	var n uint16
	_, _ = fmt.Sscan(s, &n)
	return n
}

// closeRuntime removes what ac's runtime made (the netns runtime's
// bridge) when no agent will run to close it.
func closeRuntime(ac agent.Config) {
	if c, ok := ac.Runtime.(io.Closer); ok {
		_ = c.Close()
	}
}

// dns is the pods' DNS configuration from the kubelet-named options.
func (o *NetnsOptions) dns() (netns.DNS, error) {
	d := netns.DNS{ClusterDomain: o.ClusterDomain}
	if o.ClusterDNS != "" {
		ip, err := netip.ParseAddr(o.ClusterDNS)
		if err != nil {
			return d, fmt.Errorf("--cluster-dns %q: %w", o.ClusterDNS, err)
		}
		d.ClusterDNS = []string{ip.String()}
	}
	if o.ResolvConf != "" {
		host, err := os.ReadFile(o.ResolvConf)
		if err != nil {
			return d, fmt.Errorf("--resolv-conf: %w", err)
		}
		d.Host = host
	}
	return d, nil
}
