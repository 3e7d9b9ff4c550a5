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
// Without IPVS in the kernel (KernelSupport fails), callers fall back to
// the iptables mode, as upstream documents.
package ipvs
