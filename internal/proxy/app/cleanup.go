package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/iptables"
	"github.com/svcplane/svcplane/internal/proxy/ipvs"
	"github.com/svcplane/svcplane/internal/proxy/nftables"
	"github.com/svcplane/svcplane/internal/proxy/userspace"
)

var bothFamilies = []proxy.IPFamily{proxy.IPv4, proxy.IPv6}

// Cleanup removes what every mode installs: the nftables tables, the
// KUBE-* chains of both iptables tool families, then (the chains reference
// the ipsets) IPVS virtual servers, kube-ipvs0, the ipsets and the
// userspace mode's tables. It tries everything and joins the errors.
func Cleanup(ctx context.Context) error {
	var errs []error
	for _, fam := range bothFamilies {
		nft, err := nftables.NewInterface(fam)
		if err == nil {
			err = nftables.Cleanup(ctx, nft)
		}
		errs = append(errs, err)
	}
	errs = append(errs, cleanupIPTables(ctx)...)
	errs = append(errs, cleanupIPVSAndUserspace(ctx)...)
	return errors.Join(errs...)
}

// cleanupIPTables removes the KUBE-* chains for every iptables variant
// present.
func cleanupIPTables(ctx context.Context) []error {
	var errs []error
	for _, v := range []iptables.Variant{iptables.VariantLegacy, iptables.VariantNFT} {
		for _, fam := range bothFamilies {
			if v == iptables.VariantLegacy && !legacyTablesLoaded(fam) {
				continue // reading them would load the legacy tables
			}
			ipt, err := iptables.New(fam, v)
			if err != nil {
				continue // variant not installed
			}
			if err := iptables.Cleanup(ctx, ipt); err != nil {
				errs = append(errs, fmt.Errorf("%s %s: %w", v, ipt.Variant(), err))
			}
		}
	}
	return errs
}

// cleanupIPVSAndUserspace runs after the KUBE-* chains are gone (they
// reference the ipsets).
func cleanupIPVSAndUserspace(ctx context.Context) []error {
	var errs []error
	var h ipvs.Handle
	if ipvs.KernelSupport() == nil {
		h, _ = ipvs.NewHandle()
	}
	errs = append(errs, ipvs.Cleanup(ctx, h, ipvs.IPSetCLI{}, ipvs.NetlinkLinks{}))
	for _, fam := range bothFamilies {
		if nft, err := userspace.NewNFT(fam); err == nil {
			errs = append(errs, userspace.Cleanup(ctx, nft))
		}
	}
	return errs
}

// legacyTablesLoaded reports whether any legacy (x_tables) table of the
// family exists in this network namespace.
func legacyTablesLoaded(fam proxy.IPFamily) bool {
	path := "/proc/net/ip_tables_names"
	if fam == proxy.IPv6 {
		path = "/proc/net/ip6_tables_names"
	}
	b, err := os.ReadFile(path)
	return err == nil && len(strings.TrimSpace(string(b))) > 0
}
