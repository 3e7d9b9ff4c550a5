package app

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/conntrack"
)

// serve runs an HTTP server on addr until ctx ends ("" = off; ":port" or
// a bare port listens on every IPv4 address).
func serve(ctx context.Context, addr string, h http.Handler) {
	if addr == "" {
		return
	}
	if strings.HasPrefix(addr, ":") || !strings.Contains(addr, ":") {
		addr = net.JoinHostPort("0.0.0.0", strings.TrimPrefix(addr, ":"))
	}
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.ErrorS(err, "HTTP server failed", "address", addr)
		}
	}()
	go func() { <-ctx.Done(); _ = srv.Close() }()
}

// cleanStaleUDP deletes the UDP conntrack entries a sync left pointing at
// no serving endpoint: of the changed ports after a partial sync, of all
// after a full one. Failures are logged; the next sync tries again.
func cleanStaleUDP(ct conntrack.Interface, full bool, cur *proxy.Snapshot) {
	var ports map[proxy.ServicePortName]struct{}
	if !full && cur.Changes != nil {
		ports = cur.Changes.Ports
	}
	if n, err := conntrack.CleanStaleEntries(ct, cur, ports); err != nil {
		klog.ErrorS(err, "Deleting stale UDP conntrack entries failed", "family", cur.Family)
	} else if n > 0 {
		klog.V(2).InfoS("Deleted stale UDP conntrack entries", "family", cur.Family, "entries", n)
	}
}
