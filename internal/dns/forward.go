package dns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync/atomic"
	"time"

	mdns "github.com/miekg/dns"
)

// ForwardNone refuses names outside the cluster (--dns-forward none).
const ForwardNone = "none"

// Forwarder sends questions the cluster does not own to upstream
// resolvers: one at a time, starting at the next in turn, over UDP and
// again over TCP when the answer is truncated.
type Forwarder struct {
	// Upstreams are host:port addresses.
	Upstreams []string
	// Timeout per upstream try.
	Timeout time.Duration
	// Observe, when set, is told each upstream's outcome (rcode, or -1 for
	// an error) and duration.
	Observe func(upstream string, rcode int, d time.Duration)

	next atomic.Uint32
}

// ParseForward turns --dns-forward into upstreams: "none" (nil, refuse),
// "" (the nameservers of resolvConf) or a comma-separated list of
// addresses, each with or without a port (53). Addresses in exclude (this
// server's own) are dropped, so a host whose resolv.conf names the cluster
// DNS does not forward to itself.
func ParseForward(flag, resolvConf string, exclude []netip.AddrPort) ([]string, error) {
	var servers []string
	switch strings.TrimSpace(flag) {
	case ForwardNone:
		return nil, nil
	case "":
		cc, err := mdns.ClientConfigFromFile(resolvConf)
		if err != nil {
			return nil, fmt.Errorf("--dns-forward: reading %s: %w", resolvConf, err)
		}
		for _, s := range cc.Servers {
			servers = append(servers, net.JoinHostPort(s, cc.Port))
		}
	default:
		for _, s := range strings.Split(flag, ",") {
			s = strings.TrimSpace(s)
			if _, err := netip.ParseAddr(s); err == nil {
				s = net.JoinHostPort(s, "53")
			}
			if _, err := netip.ParseAddrPort(s); err != nil {
				return nil, fmt.Errorf("--dns-forward: %q is not an IP address or address:port (or %q)", s, ForwardNone)
			}
			servers = append(servers, s)
		}
	}
	var out []string
	for _, s := range servers {
		ap, err := netip.ParseAddrPort(s)
		if err == nil && isSelf(ap, exclude) {
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 && len(servers) > 0 {
		return nil, fmt.Errorf("--dns-forward: every upstream (%s) is this server itself", strings.Join(servers, ", "))
	}
	return out, nil
}

func isSelf(ap netip.AddrPort, self []netip.AddrPort) bool {
	for _, s := range self {
		if s.Port() == ap.Port() && (s.Addr() == ap.Addr() || s.Addr().IsUnspecified()) {
			return true
		}
	}
	return false
}

// Exchange asks the upstreams in turn until one answers.
func (f *Forwarder) Exchange(ctx context.Context, req *mdns.Msg) (*mdns.Msg, error) {
	if len(f.Upstreams) == 0 {
		return nil, errors.New("no upstream resolver")
	}
	start := int(f.next.Add(1))
	var errs []error
	for i := range f.Upstreams {
		up := f.Upstreams[(start+i)%len(f.Upstreams)]
		t0 := time.Now()
		resp, err := f.exchange(ctx, up, req)
		if f.Observe != nil {
			rcode := -1
			if err == nil {
				rcode = resp.Rcode
			}
			f.Observe(up, rcode, time.Since(t0))
		}
		if err == nil {
			return resp, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", up, err))
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

func (f *Forwarder) exchange(ctx context.Context, up string, req *mdns.Msg) (*mdns.Msg, error) {
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	c := &mdns.Client{Net: "udp", Timeout: timeout, UDPSize: mdns.DefaultMsgSize}
	resp, _, err := c.ExchangeContext(ctx, req, up)
	if err == nil && resp.Truncated {
		c.Net = "tcp"
		resp, _, err = c.ExchangeContext(ctx, req, up)
	}
	return resp, err
}
