package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/nftables"
	"github.com/svcplane/svcplane/internal/proxy/userspace"
)

func (o *proxyOptions) ipvsBackend(cfg nftables.Config, state func() *proxy.Snapshot, report func(syncReport)) (modeBackend, error) {
	return modeBackend{}, fmt.Errorf("ipvs: not yet")
}

func (o *proxyOptions) userspaceBackend(_ nftables.Config, state func() *proxy.Snapshot, report func(syncReport)) (modeBackend, error) {
	nft, err := userspace.NewNFT()
	if err != nil {
		return modeBackend{}, err
	}
	p, err := userspace.NewProxier(userspace.Config{Scheduler: o.modes.ipvsScheduler}, userspace.NewRedirector(nft), state, nil)
	if err != nil {
		return modeBackend{}, err
	}
	p.OnSynced = func(res userspace.SyncResult, prev, cur *proxy.Snapshot, err error) {
		report(syncReport{full: res.Full, changes: res.Portals, duration: res.Duration, prev: prev, cur: cur, err: err})
	}
	return modeBackend{sync: p.SyncProxyRules, background: func(ctx context.Context, _ func()) {
		<-ctx.Done()
		p.Close()
	}}, nil
}

func cleanupIPVSAndUserspace(ctx context.Context) []error {
	var errs []error
	if nft, err := userspace.NewNFT(); err == nil {
		errs = append(errs, userspace.Cleanup(ctx, nft))
	}
	return errs
}

func joinErrs(errs []error) error { return errors.Join(errs...) }
