package iptables

import (
	"context"
	"os/exec"
	"strconv"
	"strings"

	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/proxy"
)

// Conntrack deletes conntrack entries. It is the small interface the
// backends use until internal/proxy/conntrack (netlink) exists; the real
// implementation runs the conntrack CLI.
type Conntrack interface {
	ClearUDP(ctx context.Context, f proxy.StaleFlow) error
}

// ConntrackCLI runs `conntrack -D`.
type ConntrackCLI struct{}

// conntrackArgs renders a flow as conntrack -D arguments.
func conntrackArgs(f proxy.StaleFlow) []string {
	args := []string{"-D", "-p", "udp"}
	if f.Dst.IsValid() {
		fam := "ipv4"
		if proxy.FamilyOf(f.Dst) == proxy.IPv6 {
			fam = "ipv6"
		}
		args = append(args, "-f", fam, "--orig-dst", f.Dst.String())
	}
	args = append(args, "--orig-port-dst", strconv.Itoa(int(f.Port)))
	if f.Endpoint.IsValid() {
		args = append(args, "--dst-nat", f.Endpoint.String())
	}
	return args
}

// ClearUDP implements Conntrack; finding no entry is not an error.
func (ConntrackCLI) ClearUDP(ctx context.Context, f proxy.StaleFlow) error {
	out, err := exec.CommandContext(ctx, "conntrack", conntrackArgs(f)...).CombinedOutput()
	if err != nil && strings.Contains(string(out), "0 flow entries have been deleted") {
		return nil
	}
	if err != nil {
		return &ExecError{Cmd: "conntrack " + strings.Join(conntrackArgs(f), " "), Err: err, Stderr: string(out)}
	}
	return nil
}

// ClearStaleUDP deletes the UDP entries a sync from prev to cur left
// wrong; failures are logged, not returned (the next change retries none).
func ClearStaleUDP(ctx context.Context, ct Conntrack, prev, cur *proxy.Snapshot) {
	for _, f := range proxy.StaleUDPFlows(prev, cur) {
		if err := ct.ClearUDP(ctx, f); err != nil {
			klog.ErrorS(err, "Deleting stale UDP conntrack entries failed", "flow", f)
		}
	}
}
