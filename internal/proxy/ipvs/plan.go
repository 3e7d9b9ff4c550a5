package ipvs

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/svcplane/svcplane/internal/proxy"
)

// DummyInterface is where service IPs are bound.
const DummyInterface = "kube-ipvs0"

// The ipsets, with upstream's names and types. KUBE-NO-LOCAL-ENDPOINTS
// is svcplane's: destinations whose traffic policy leaves no endpoint on
// this node, dropped as the other modes drop them.
const (
	setClusterIP        = "KUBE-CLUSTER-IP"
	setLoopBack         = "KUBE-LOOP-BACK"
	setExternalIP       = "KUBE-EXTERNAL-IP"
	setExternalIPLocal  = "KUBE-EXTERNAL-IP-LOCAL"
	setLoadBalancer     = "KUBE-LOAD-BALANCER"
	setLoadBalancerLoc  = "KUBE-LOAD-BALANCER-LOCAL"
	setLoadBalancerFW   = "KUBE-LOAD-BALANCER-FW"
	setLoadBalancerSrc  = "KUBE-LOAD-BALANCER-SOURCE-CIDR"
	setNodePortTCP      = "KUBE-NODE-PORT-TCP"
	setNodePortUDP      = "KUBE-NODE-PORT-UDP"
	setNodePortLocalTCP = "KUBE-NODE-PORT-LOCAL-TCP"
	setNodePortLocalUDP = "KUBE-NODE-PORT-LOCAL-UDP"
	setNoLocalEndpoints = "KUBE-NO-LOCAL-ENDPOINTS"
)

// SetTypes are the ipset types of the sets.
var SetTypes = map[string]string{
	setClusterIP: "hash:ip,port", setLoopBack: "hash:ip,port,ip", setExternalIP: "hash:ip,port",
	setExternalIPLocal: "hash:ip,port", setLoadBalancer: "hash:ip,port", setLoadBalancerLoc: "hash:ip,port",
	setLoadBalancerFW: "hash:ip,port", setLoadBalancerSrc: "hash:ip,port,net", setNodePortTCP: "bitmap:port",
	setNodePortUDP: "bitmap:port", setNodePortLocalTCP: "bitmap:port", setNodePortLocalUDP: "bitmap:port",
	setNoLocalEndpoints: "hash:ip,port",
}

// Config is the mode's configuration.
type Config struct {
	Family        proxy.IPFamily
	Scheduler     string
	ClusterCIDRs  []netip.Prefix
	MasqueradeAll bool
	MasqueradeBit int
	// NodePortAddresses limits the node addresses NodePort virtual
	// servers are made for (empty: all of the Node's addresses).
	NodePortAddresses []netip.Prefix
}

// State is the planned kernel state: virtual servers with their real
// servers, the addresses bound on kube-ipvs0 and the ipset entries.
type State struct {
	Services  map[string]*VirtualServer
	Reals     map[string][]*RealServer
	Addresses []netip.Addr
	Sets      map[string]map[string]bool
}

// Plan turns a snapshot into the desired State. It does no I/O.
func Plan(cfg *Config, snap *proxy.Snapshot) *State {
	st := &State{Services: map[string]*VirtualServer{}, Reals: map[string][]*RealServer{}, Sets: map[string]map[string]bool{}}
	for name := range SetTypes {
		st.Sets[name] = map[string]bool{}
	}
	bound := map[netip.Addr]bool{}
	for name, svc := range snap.Services {
		planService(cfg, st, svc, snap.Endpoints[name], snap.Node, bound)
	}
	for a := range bound {
		st.Addresses = append(st.Addresses, a)
	}
	slices.SortFunc(st.Addresses, func(a, b netip.Addr) int { return a.Compare(b) })
	return st
}

func entry(ip netip.Addr, proto string, port uint16) string {
	return ip.String() + "," + proto + ":" + strconv.Itoa(int(port))
}

func (st *State) add(set, e string) { st.Sets[set][e] = true }

// addVS adds a virtual server with targets (none: kept, answering with
// ICMP port unreachable as IPVS does; noLocal: dropped by the filter).
func (st *State) addVS(cfg *Config, svc *proxy.ServicePort, ip netip.Addr, port uint16, targets []proxy.Endpoint, noLocal bool) {
	vs := &VirtualServer{Address: ip, Protocol: svc.Protocol, Port: port, Scheduler: cfg.Scheduler}
	if svc.StickyMaxAgeSeconds > 0 {
		vs.Flags, vs.Timeout = FlagPersistent, uint32(svc.StickyMaxAgeSeconds)
	}
	st.Services[vs.Key()] = vs
	reals := make([]*RealServer, 0, len(targets))
	for _, ep := range targets {
		reals = append(reals, &RealServer{Address: ep.IP, Port: ep.Port, Weight: 1})
	}
	st.Reals[vs.Key()] = reals
	if noLocal {
		st.add(setNoLocalEndpoints, entry(ip, strings.ToLower(string(svc.Protocol)), port))
	}
}

func planService(cfg *Config, st *State, svc *proxy.ServicePort, eps []proxy.Endpoint, node proxy.Node, bound map[netip.Addr]bool) {
	cluster, local, all, hasAny := proxy.CategorizeEndpoints(eps, svc, node)
	internal, external := cluster, cluster
	if svc.InternalPolicyLocal {
		internal = local
	}
	if svc.ExternalPolicyLocal {
		external = local
	}
	proto := strings.ToLower(string(svc.Protocol))
	for _, ep := range all {
		st.add(setLoopBack, entry(ep.IP, proto, ep.Port)+","+ep.IP.String())
	}
	st.add(setClusterIP, entry(svc.ClusterIP, proto, svc.Port))
	bound[svc.ClusterIP] = true
	st.addVS(cfg, svc, svc.ClusterIP, svc.Port, internal, hasAny && len(internal) == 0)
	noLocalExt := hasAny && len(external) == 0
	for _, ip := range svc.ExternalIPs {
		bound[ip] = true
		st.add(setExternalIP, entry(ip, proto, svc.Port))
		if svc.ExternalPolicyLocal {
			st.add(setExternalIPLocal, entry(ip, proto, svc.Port))
		}
		st.addVS(cfg, svc, ip, svc.Port, external, noLocalExt)
	}
	for _, ip := range svc.LoadBalancerVIPs {
		bound[ip] = true
		e := entry(ip, proto, svc.Port)
		st.add(setLoadBalancer, e)
		if svc.ExternalPolicyLocal {
			st.add(setLoadBalancerLoc, e)
		}
		if len(svc.LoadBalancerSourceRanges) > 0 {
			st.add(setLoadBalancerFW, e)
			for _, r := range svc.LoadBalancerSourceRanges {
				st.add(setLoadBalancerSrc, e+","+r.String())
			}
		}
		st.addVS(cfg, svc, ip, svc.Port, external, noLocalExt)
	}
	if svc.NodePort == 0 {
		return
	}
	npSet, npLocal := setNodePortTCP, setNodePortLocalTCP
	if svc.Protocol == proxy.UDP {
		npSet, npLocal = setNodePortUDP, setNodePortLocalUDP
	}
	st.add(npSet, strconv.Itoa(int(svc.NodePort)))
	if svc.ExternalPolicyLocal {
		st.add(npLocal, strconv.Itoa(int(svc.NodePort)))
	}
	for _, ip := range nodePortAddrs(cfg, node) {
		st.addVS(cfg, svc, ip, svc.NodePort, external, noLocalExt)
	}
}

// nodePortAddrs are the node addresses NodePort virtual servers use.
func nodePortAddrs(cfg *Config, node proxy.Node) []netip.Addr {
	var out []netip.Addr
	for _, ip := range node.IPs {
		if proxy.FamilyOf(ip) != cfg.Family && cfg.Family != 0 {
			continue
		}
		if len(cfg.NodePortAddresses) == 0 {
			out = append(out, ip)
			continue
		}
		for _, p := range cfg.NodePortAddresses {
			if p.Contains(ip) {
				out = append(out, ip)
				break
			}
		}
	}
	return out
}
