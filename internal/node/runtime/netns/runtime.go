package netns

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/vishvananda/netns"

	"github.com/svcplane/svcplane/internal/node/container"
	"github.com/svcplane/svcplane/internal/node/runtime/sim"
)

// DefaultBridge is the host bridge's name; DefaultHostAddress its address
// and prefix, the range the nodes' InternalIPs come from (node i gets
// address i+2). 10.250.0.0/16 is used by no other svcplane test or default.
const (
	DefaultBridge      = "svcplane0"
	DefaultHostAddress = "10.250.0.1/16"
)

// Config is what a Runtime builds on.
type Config struct {
	// Client reads the ConfigMaps, Secrets and Services a host-process
	// container's environment refers to (nil: literal values only).
	Client kubernetes.Interface
	Clock  clock.WithTicker
	// Bridge is the host bridge (DefaultBridge).
	Bridge string
	// HostAddress is the bridge's address; nodes' InternalIPs must lie
	// in its prefix (DefaultHostAddress).
	HostAddress netip.Prefix
	// ServiceCIDRs are routed from the host to the first node.
	ServiceCIDRs []netip.Prefix
	// NodeIPs are the nodes' InternalIPs by name (a node's namespace can
	// then be made before it has pod CIDRs: ListenInNode).
	NodeIPs map[string]string
	// Proxy, when set, is started in each node's namespace once it
	// exists (the node's service proxy) and killed at Close.
	Proxy func(node string) ProxyProcess
	// DNS, when its ClusterDomain is set, gives host-process containers
	// (and exec) the pod's /etc/resolv.conf as the kubelet writes it for
	// its dnsPolicy, bound over the host's in a mount namespace of their
	// own; unset: they see the host's.
	DNS DNS
	// UnpullableImages, when set, are the images no registry has: their
	// containers wait in ErrImagePull/ImagePullBackOff, as the kubelet
	// shows a failed pull (the runtime pulls nothing; every other image
	// runs).
	UnpullableImages *regexp.Regexp
}

// ProxyProcess is the argv of a node's proxy and where its output goes.
type ProxyProcess struct {
	Argv []string
	Log  string // file (appended); empty: discarded
}

// Runtime runs pods in network namespaces. Its pod records and addresses
// come from a sim.Runtime (the same IPAM, adoption and restart rules).
type Runtime struct {
	cfg Config
	sim *sim.Runtime
	net *network

	// dir holds the pods' resolv.conf files and emptyDir volumes
	// (removed at Close).
	dir string
	// mounts are the directories made on the host for mount paths.
	mounts *mountpoints

	mu   sync.Mutex
	pods map[types.UID]*pod
	// ended are pods KillPod stopped (they ended, or their sandbox was
	// torn down), kept for their containers' logs until Forget (the pod's
	// deletion) or until maxEnded newer ones ended: the kubelet serves a
	// terminated pod's logs until the pod is deleted.
	ended      map[types.UID]*pod
	endedOrder []types.UID
	onChange   func(namespace, name string)
	proxies    map[string]*proxyProc
	closed     bool
}

var (
	_ container.Reporter = (*Runtime)(nil)
	_ container.Streams  = (*Runtime)(nil)
)

// New removes what a crashed runtime left on the host (its bridge) and
// makes the bridge afresh. The calling process's network namespace is
// the host's.
func New(cfg Config) (*Runtime, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Bridge == "" {
		cfg.Bridge = DefaultBridge
	}
	if !cfg.HostAddress.IsValid() {
		cfg.HostAddress = netip.MustParsePrefix(DefaultHostAddress)
	}
	if !cfg.HostAddress.Addr().Is4() {
		return nil, fmt.Errorf("host address %s: the netns runtime is IPv4 only", cfg.HostAddress)
	}
	host, err := netns.Get()
	if err != nil {
		return nil, err
	}
	n := &network{host: host, bridge: cfg.Bridge, hostAddr: cfg.HostAddress, serviceCIDRs: cfg.ServiceCIDRs,
		nodes: map[string]*nodeNet{}}
	if err := n.setupHost(); err != nil {
		host.Close()
		return nil, err
	}
	dir, err := os.MkdirTemp("", "svcplane-netns-")
	if err != nil {
		_ = n.teardown()
		host.Close()
		return nil, err
	}
	mounts := newMountpoints(filepath.Join(mountpointsDir, cfg.Bridge+".mountpoints"))
	return &Runtime{cfg: cfg, sim: sim.New(cfg.Clock), net: n, dir: dir, mounts: mounts, pods: map[types.UID]*pod{}, ended: map[types.UID]*pod{},
		proxies: map[string]*proxyProc{}}, nil
}

// SetOnChange implements container.Reporter.
func (r *Runtime) SetOnChange(f func(namespace, name string)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.onChange = f
}

func (r *Runtime) changed(namespace, name string) {
	r.mu.Lock()
	f := r.onChange
	r.mu.Unlock()
	if f != nil {
		f(namespace, name)
	}
}

// nodeNet returns the node's namespace, made on first use from its
// InternalIP (hostIP, else Config.NodeIPs), with its proxy started.
func (r *Runtime) nodeNet(name, hostIP string) (*nodeNet, error) {
	r.net.mu.Lock()
	nn := r.net.nodes[name]
	r.net.mu.Unlock()
	if nn != nil {
		return nn, nil
	}
	if hostIP == "" {
		hostIP = r.cfg.NodeIPs[name]
	}
	ip, err := netip.ParseAddr(hostIP)
	if err != nil {
		return nil, fmt.Errorf("node %s: no InternalIP for its namespace (%q)", name, hostIP)
	}
	nn, err = r.net.node(name, ip)
	if err != nil {
		return nil, err
	}
	r.startProxy(nn)
	return nn, nil
}

// SetNode makes the node's namespace and routes its pod CIDRs.
func (r *Runtime) SetNode(name string, podCIDRs, hostIPs []string) error {
	if err := r.sim.SetNode(name, podCIDRs, hostIPs); err != nil {
		return err
	}
	ip := ""
	if len(hostIPs) > 0 {
		ip = hostIPs[0]
	}
	nn, err := r.nodeNet(name, ip)
	if err != nil {
		return err
	}
	var cidrs []netip.Prefix
	for _, c := range podCIDRs {
		p, err := netip.ParsePrefix(c)
		if err != nil {
			return fmt.Errorf("node %s: pod CIDR %q: %w", name, c, err)
		}
		cidrs = append(cidrs, p.Masked())
	}
	return r.net.setPodCIDRs(nn, cidrs)
}

// Len is the number of running pods.
func (r *Runtime) Len() int { return r.sim.Len() }

// Running returns a running pod's record.
func (r *Runtime) Running(uid types.UID) (sim.Pod, bool) { return r.sim.Running(uid) }

// RunPod gives pod its address and namespace and starts its containers.
func (r *Runtime) RunPod(pod *corev1.Pod) (sim.Pod, error) {
	if rec, ok := r.sim.Running(pod.UID); ok {
		return rec, nil
	}
	rec, err := r.sim.RunPod(pod)
	if err != nil {
		return rec, err
	}
	if err := r.start(pod, rec, nil); err != nil {
		r.sim.KillPod(pod.UID)
		return sim.Pod{}, err
	}
	return rec, nil
}

// Adopt takes over a pod that ran before the agent restarted: it gets its
// old address in a new namespace, and its containers start again keeping
// their restart counts.
func (r *Runtime) Adopt(pod *corev1.Pod) bool {
	if !r.sim.Adopt(pod) {
		return false
	}
	rec, _ := r.sim.Running(pod.UID)
	if err := r.start(pod, rec, pod.Status.ContainerStatuses); err != nil {
		klog.ErrorS(err, "Adopting a pod failed; it starts afresh", "pod", klog.KObj(pod))
		r.sim.KillPod(pod.UID)
		return false
	}
	return true
}

func (r *Runtime) start(pod *corev1.Pod, rec sim.Pod, old []corev1.ContainerStatus) error {
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return fmt.Errorf("runtime closed")
	}
	host := ""
	if len(pod.Status.HostIPs) > 0 {
		host = pod.Status.HostIPs[0].IP
	}
	nn, err := r.nodeNet(pod.Spec.NodeName, host)
	if err != nil {
		return err
	}
	p := newPod(r, pod, rec, nn)
	if r.cfg.DNS.ClusterDomain != "" {
		p.resolvConf = filepath.Join(r.dir, string(pod.UID)+".resolv.conf")
		if err := os.WriteFile(p.resolvConf, r.cfg.DNS.resolvConf(pod), 0o644); err != nil {
			return fmt.Errorf("pod %s/%s resolv.conf: %w", pod.Namespace, pod.Name, err)
		}
	}
	if err := p.makeVolumes(); err != nil {
		p.releaseVolumes()
		return fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	if !pod.Spec.HostNetwork {
		ip, err := firstIPv4(rec.IPs)
		if err != nil {
			return fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
		}
		if p.net, err = addPod(nn, string(pod.UID), ip); err != nil {
			p.releaseVolumes()
			return fmt.Errorf("pod %s/%s network: %w", pod.Namespace, pod.Name, err)
		}
		p.ns = p.net.ns
	}
	p.restore(old)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		close(p.done)
		p.stop()
		return fmt.Errorf("runtime closed")
	}
	r.pods[pod.UID] = p
	r.mu.Unlock()
	go p.run()
	return nil
}

// KillPod stops a pod's containers and removes its namespace.
func (r *Runtime) KillPod(uid types.UID) {
	r.mu.Lock()
	p := r.pods[uid]
	delete(r.pods, uid)
	r.mu.Unlock()
	if p != nil {
		p.stop()
		r.mu.Lock()
		if !r.closed {
			r.ended[uid] = p
			r.endedOrder = append(r.endedOrder, uid)
			for len(r.endedOrder) > maxEnded {
				delete(r.ended, r.endedOrder[0])
				r.endedOrder = r.endedOrder[1:]
			}
		}
		r.mu.Unlock()
	}
	r.sim.KillPod(uid)
}

// maxEnded bounds the ended pods whose logs the runtime keeps.
const maxEnded = 1000

// Forget drops what the runtime kept of an ended pod (its logs): the
// agent calls it when the pod is deleted.
func (r *Runtime) Forget(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.ended[uid]; !ok {
		return
	}
	delete(r.ended, uid)
	for i, u := range r.endedOrder {
		if u == uid {
			r.endedOrder = append(r.endedOrder[:i], r.endedOrder[i+1:]...)
			break
		}
	}
}

func (r *Runtime) pod(uid types.UID) (*pod, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pods[uid]
	if p == nil {
		return nil, container.ErrNotFound
	}
	return p, nil
}

// loggedPod is a running pod, or an ended one whose logs are kept.
func (r *Runtime) loggedPod(uid types.UID) (*pod, error) {
	r.mu.Lock()
	p := r.ended[uid]
	r.mu.Unlock()
	if p != nil {
		return p, nil
	}
	return r.pod(uid)
}

// StopPod implements the agent's Stopper: the pod's containers get
// SIGTERM (in-process ones end at once, as pause and agnhost do) and
// SIGKILL at deadline; it reports whether all have ended.
func (r *Runtime) StopPod(uid types.UID, deadline time.Time) bool {
	p, err := r.pod(uid)
	if err != nil {
		return true
	}
	return p.terminate(deadline)
}

// PodState implements container.Reporter.
func (r *Runtime) PodState(uid types.UID) (container.PodState, bool) {
	p, err := r.pod(uid)
	if err != nil {
		return container.PodState{}, false
	}
	return p.state(), true
}

// ListenInNode opens a listener inside node's namespace (the kubelet
// port), making the namespace if needed.
func (r *Runtime) ListenInNode(node, network, address string) (net.Listener, error) {
	nn, err := r.nodeNet(node, "")
	if err != nil {
		return nil, err
	}
	var l net.Listener
	err = inNS(nn.ns, func() (err error) {
		l, err = net.Listen(network, address)
		return err
	})
	return l, err
}

// Close stops every pod and proxy and removes the namespaces, links and
// routes the runtime made.
func (r *Runtime) Close() error {
	r.mu.Lock()
	r.closed = true
	r.ended, r.endedOrder = map[types.UID]*pod{}, nil
	pods := r.pods
	r.pods = map[types.UID]*pod{}
	proxies := r.proxies
	r.proxies = map[string]*proxyProc{}
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range pods {
		wg.Add(1)
		go func() { defer wg.Done(); p.stop() }()
	}
	for _, pp := range proxies {
		wg.Add(1)
		go func() { defer wg.Done(); pp.stop() }()
	}
	wg.Wait()
	err := r.net.teardown()
	r.net.host.Close()
	_ = os.RemoveAll(r.dir)
	return err
}

// firstIPv4 is the address the pod's namespace gets: the netns runtime
// is IPv4 only (an IPv6 pod CIDR's address is recorded, not configured).
func firstIPv4(ips []string) (netip.Addr, error) {
	for _, s := range ips {
		if ip, err := netip.ParseAddr(s); err == nil && ip.Is4() {
			return ip, nil
		}
	}
	return netip.Addr{}, fmt.Errorf("no IPv4 address among %v: the netns runtime is IPv4 only", ips)
}
