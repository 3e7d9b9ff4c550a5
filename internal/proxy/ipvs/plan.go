package ipvs

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svcplane/svcplane/internal/proxy"
)

// DummyInterface is where service IPs are bound.
const DummyInterface = "kube-ipvs0"

// The ipsets, with upstream's names and types (these are the IPv4 names;
// SetName gives the IPv6 ones). KUBE-NO-LOCAL-ENDPOINTS is svcplane's:
// destinations whose traffic policy leaves no endpoint on this node,
// dropped as the other modes drop them.
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

// SetTypes are the ipset types of the sets, by IPv4 name.
var SetTypes = map[string]string{
	setClusterIP: "hash:ip,port", setLoopBack: "hash:ip,port,ip", setExternalIP: "hash:ip,port",
	setExternalIPLocal: "hash:ip,port", setLoadBalancer: "hash:ip,port", setLoadBalancerLoc: "hash:ip,port",
	setLoadBalancerFW: "hash:ip,port", setLoadBalancerSrc: "hash:ip,port,net", setNodePortTCP: "bitmap:port",
	setNodePortUDP: "bitmap:port", setNodePortLocalTCP: "bitmap:port", setNodePortLocalUDP: "bitmap:port",
	setNoLocalEndpoints: "hash:ip,port",
}

// maxSetNameLen is the kernel's limit on ipset names (IPSET_MAXNAMELEN-1).
const maxSetNameLen = 31

// SetName is the name of set base (one of the IPv4 names) in family.
// As upstream does, so that both families' sets can exist on one node,
// the IPv6 sets replace the "KUBE-" prefix with "KUBE-6-", cut to the
// 31 characters ipset allows (KUBE-6-LOAD-BALANCER-SOURCE-CID).
func SetName(family proxy.IPFamily, base string) string {
	if family != proxy.IPv6 || !strings.HasPrefix(base, "KUBE-") {
		return base
	}
	name := "KUBE-6-" + strings.TrimPrefix(base, "KUBE-")
	if len(name) > maxSetNameLen {
		name = name[:maxSetNameLen]
	}
	return name
}

// familySets maps each set name of family to its IPv4 (base) name.
func familySets(family proxy.IPFamily) map[string]string {
	out := make(map[string]string, len(SetTypes))
	for base := range SetTypes {
		out[SetName(family, base)] = base
	}
	return out
}

// setCreateArgs is what follows "create NAME" for set base in family,
// as upstream creates them: hash sets carry their family (inet or
// inet6), bitmap:port sets their range and no family.
func setCreateArgs(family proxy.IPFamily, base string) string {
	typ := SetTypes[base]
	if typ == "bitmap:port" {
		return typ + " range 0-65535"
	}
	fam := "inet"
	if family == proxy.IPv6 {
		fam = "inet6"
	}
	return typ + " family " + fam + " hashsize 1024 maxelem 65536"
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
	// GracefulTerminationInterval is how often real servers being
	// drained are checked for connections (0: one minute, as upstream).
	GracefulTerminationInterval time.Duration
}

// State is the planned kernel state: virtual servers with their real
// servers, the addresses bound on kube-ipvs0 and the ipset entries.
type State struct {
	Services  map[string]*VirtualServer
	Reals     map[string][]*RealServer
	Addresses []netip.Addr
	// Sets are keyed by the family's set names (SetName).
	Sets map[string]map[string]bool

	family proxy.IPFamily
}

// Plan turns a snapshot into the desired State. It does no I/O.
func Plan(cfg *Config, snap *proxy.Snapshot) *State {
	st := &State{Services: map[string]*VirtualServer{}, Reals: map[string][]*RealServer{}, Sets: map[string]map[string]bool{},
		family: familyOf(cfg)}
	for name := range familySets(st.family) {
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

// add adds e to the family's set of base name set.
func (st *State) add(set, e string) { st.Sets[SetName(st.family, set)][e] = true }

// familyOf is the configured family (IPv4 when unset).
func familyOf(cfg *Config) proxy.IPFamily {
	if cfg.Family == proxy.IPv6 {
		return proxy.IPv6
	}
	return proxy.IPv4
}

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
		if proxy.FamilyOf(ip) != familyOf(cfg) {
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
