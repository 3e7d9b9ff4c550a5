// Package iptables is the proxy's iptables mode with upstream kube-proxy's
// chain model: KUBE-SERVICES dispatches to per-Service KUBE-SVC-*/KUBE-SVL-*
// chains that spread over per-endpoint KUBE-SEP-* chains with statistic
// probabilities (and `recent` lists for ClientIP affinity); KUBE-EXT-* and
// KUBE-FW-* handle external traffic and loadBalancerSourceRanges;
// KUBE-MARK-MASQ / KUBE-POSTROUTING masquerade; the filter table REJECTs
// traffic to Services without endpoints. README.md draws the chains.
//
// A pure planner (Plan, PlanFrom) turns a snapshot into a Ruleset; the
// Proxier writes iptables-restore --noflush input through Interface (the
// real tools of either variant, iptables-nft or iptables-legacy, or Fake).
//
// Guarantees: a partial sync restores only chains whose rules changed and
// deletes chains that went away, after the chains that jumped to them were
// rewritten; a full sync (first, periodic, after a failure, or when the
// KUBE-PROXY-CANARY chain disappeared) rewrites every chain and, when the
// installed state is unknown, deletes stale per-Service chains and adds
// missing jump rules. With the legacy tools or a single restore, each sync
// is atomic per table; the nft variant's large syncs are split into
// restores that each keep a service's chains together, with the shared
// chains (which make new chains reachable) and deletions last.
package iptables
