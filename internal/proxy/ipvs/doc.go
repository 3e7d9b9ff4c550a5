// Package ipvs is the proxy's IPVS mode, as upstream kube-proxy builds it:
// one IPVS virtual server per ClusterIP, external IP, load-balancer IP and
// node address × NodePort, with the configured scheduler and ClientIP
// affinity as persistence; service IPs bound to the dummy interface
// kube-ipvs0 so the kernel accepts them; ipsets and a fixed set of
// iptables rules for masquerading and filtering.
//
// A pure planner turns a snapshot into a State (virtual servers with real
// servers, bound addresses, ipset entries); the Proxier reconciles the
// kernel with it through three small interfaces — Handle (IPVS netlink,
// github.com/moby/ipvs), IPSet (ipset restore) and Links (the dummy
// interface) — each with a Fake that enforces the kernel's rules.
//
// Dual-stack runs two Proxiers, one per Config.Family, over one Handle,
// IPSet and Links, as upstream's meta-proxier does. Each one's full sync
// lists and changes only virtual servers and kube-ipvs0 addresses of its
// family (IPv6 addresses are bound as /128; link-local ones are never
// touched), and each has its own sets: the IPv6 ones are named as
// upstream names them, "KUBE-6-" instead of "KUBE-", cut to ipset's 31
// characters (SetName), created "family inet6". The IPv6 Proxier's
// iptables.Interface must be ip6tables. Cleanup removes both families.
//
// Graceful termination (graceful.go), as upstream: a TCP real server no
// longer wanted (its endpoint gone, or terminating while ready endpoints
// remain) that still has active or inactive connections is set to weight
// 0 and deleted by a later check once they are gone; checks run every
// Config.GracefulTerminationInterval (default one minute) from
// RunGracefulTermination, and at most that often at the start of a sync.
// UDP and SCTP real servers are deleted at once. An endpoint that comes
// back while draining gets its weight back. Terminating endpoints used
// as the fallback keep weight 1. Time comes from the injected clock.
//
// Without IPVS in the kernel (KernelSupport fails), callers fall back to
// the iptables mode, as upstream documents.
package ipvs
