package iptables

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/svcplane/svcplane/internal/proxy/iptables/iptext"
)

// kubeletChains are KUBE-* chains the kubelet owns; cleanup leaves them.
var kubeletChains = []string{"KUBE-KUBELET-CANARY", "KUBE-FIREWALL", "KUBE-MARK-DROP"}

func isProxyChain(name string) bool {
	return strings.HasPrefix(name, "KUBE-") && !slices.Contains(kubeletChains, name)
}

// Cleanup removes every KUBE-* chain of the proxy (any mode's, in the
// filter, nat and mangle tables) and the rules in builtin chains that
// jump to them. Tables without such chains are not touched.
func Cleanup(ctx context.Context, ipt Interface) error {
	var errs []error
	for _, t := range []Table{TableFilter, TableNAT, TableMangle} {
		out, err := ipt.Save(ctx, t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		data, err := cleanupRestore(t, string(out))
		if err != nil || data == "" {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, ipt.Restore(ctx, []byte(data)))
	}
	return errors.Join(errs...)
}

// cleanupRestore builds the restore text removing the proxy's chains from
// one table's save output ("" when there is nothing to remove).
func cleanupRestore(t Table, save string) (string, error) {
	tables, err := iptext.ParseSave(save)
	if err != nil {
		return "", err
	}
	tab := tables[string(t)]
	if tab == nil {
		return "", nil
	}
	var b strings.Builder
	var ours []string
	for _, c := range tab.Order {
		if isProxyChain(c) {
			ours = append(ours, c)
			continue
		}
		for _, r := range tab.Rules[c] {
			if target := jumpTarget(r); isProxyChain(target) {
				b.WriteString("-D " + c + " " + r + "\n")
			}
		}
	}
	if len(ours) == 0 && b.Len() == 0 {
		return "", nil
	}
	head := "*" + string(t) + "\n"
	for _, c := range ours {
		head += ":" + c + " - [0:0]\n"
	}
	for _, c := range ours {
		b.WriteString("-X " + c + "\n")
	}
	return head + b.String() + "COMMIT\n", nil
}
