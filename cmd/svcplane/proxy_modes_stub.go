package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/nftables"
)

func (o *proxyOptions) ipvsBackend(cfg nftables.Config, state func() *proxy.Snapshot, report func(syncReport)) (modeBackend, error) {
	return modeBackend{}, fmt.Errorf("ipvs: not yet")
}

func (o *proxyOptions) userspaceBackend(cfg nftables.Config, state func() *proxy.Snapshot, report func(syncReport)) (modeBackend, error) {
	return modeBackend{}, fmt.Errorf("userspace: not yet")
}

func cleanupIPVSAndUserspace(ctx context.Context) []error { return nil }

func joinErrs(errs []error) error { return errors.Join(errs...) }
