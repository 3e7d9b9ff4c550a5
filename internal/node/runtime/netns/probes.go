package netns

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// startProbes runs c's probes from the node while this run of c lasts:
// a startup probe first (c.started once it succeeds; failureThreshold
// failures kill the run), then readiness (sets c.ready) and liveness
// (failureThreshold failures in a row kill the run, which restarts by
// the pod's policy).
func (p *pod) startProbes(ctx context.Context, c *ctr, kill context.CancelFunc) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if pr := c.spec.StartupProbe; pr != nil && !p.startup(ctx, c, pr, kill) {
			return
		}
		p.runtimeProbes(ctx, c, kill, &wg)
	}()
	return &wg
}

// startup probes until the first success (true) or failureThreshold
// failures, which kill the run.
func (p *pod) startup(ctx context.Context, c *ctr, pr *corev1.Probe, kill context.CancelFunc) bool {
	sctx, done := context.WithCancel(ctx)
	defer done()
	ok := false
	p.probeLoop(sctx, c, pr, func(success bool) {
		if !success {
			fmt.Fprintf(c.log, "Startup probe failed; killing the container\n")
			kill()
			return
		}
		ok = true
		p.mu.Lock()
		c.started = true
		p.mu.Unlock()
		p.changed()
		done()
	})
	return ok && ctx.Err() == nil
}

func (p *pod) runtimeProbes(ctx context.Context, c *ctr, kill context.CancelFunc, wg *sync.WaitGroup) {
	if pr := c.spec.ReadinessProbe; pr != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.probeLoop(ctx, c, pr, func(ok bool) {
				p.mu.Lock()
				was := c.ready
				c.ready = ok
				p.mu.Unlock()
				if was != ok {
					p.changed()
				}
			})
		}()
	}
	if pr := c.spec.LivenessProbe; pr != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.probeLoop(ctx, c, pr, func(ok bool) {
				if !ok {
					fmt.Fprintf(c.log, "Liveness probe failed; killing the container\n")
					kill()
				}
			})
		}()
	}
}

// probeLoop probes every periodSeconds after initialDelaySeconds and
// reports a result each time successThreshold successes or
// failureThreshold failures in a row are reached.
func (p *pod) probeLoop(ctx context.Context, c *ctr, pr *corev1.Probe, report func(bool)) {
	period := time.Duration(max(pr.PeriodSeconds, 1)) * time.Second
	if pr.PeriodSeconds == 0 {
		period = 10 * time.Second
	}
	succ, fail := max(pr.SuccessThreshold, 1), pr.FailureThreshold
	if fail == 0 {
		fail = 3
	}
	clk := p.r.cfg.Clock
	select {
	case <-ctx.Done():
		return
	case <-clk.After(time.Duration(pr.InitialDelaySeconds) * time.Second):
	}
	okRun, failRun := int32(0), int32(0)
	for {
		if p.probe(ctx, c, pr) {
			okRun, failRun = okRun+1, 0
			if okRun == succ {
				report(true)
			}
		} else {
			okRun, failRun = 0, failRun+1
			if failRun == fail {
				report(false)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-clk.After(period):
		}
	}
}

// probe runs one probe: HTTP GET and TCP connect from the node's
// namespace to the pod, exec of a host program in the pod.
func (p *pod) probe(ctx context.Context, c *ctr, pr *corev1.Probe) bool {
	timeout := time.Duration(max(pr.TimeoutSeconds, 1)) * time.Second
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	host := ""
	if len(p.rec.IPs) > 0 {
		host = p.rec.IPs[0]
	}
	switch {
	case pr.HTTPGet != nil:
		g := pr.HTTPGet
		if g.Host != "" {
			host = g.Host
		}
		port, err := probePort(g.Port, &c.spec)
		if err != nil {
			return false
		}
		scheme := "http"
		if g.Scheme == corev1.URISchemeHTTPS {
			scheme = "https"
		}
		u := url.URL{Scheme: scheme, Host: net.JoinHostPort(host, strconv.Itoa(port)), Path: g.Path}
		if q, err := url.Parse(g.Path); err == nil {
			u.Path, u.RawQuery = q.Path, q.RawQuery
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return false
		}
		req.Header.Set("User-Agent", "kube-probe/1.36")
		for _, h := range g.HTTPHeaders {
			req.Header.Set(h.Name, h.Value)
		}
		client := httpClient(p.node.ns, timeout)
		// As the kubelet's prober: HTTPS without verifying the pod's
		// certificate (pkg/probe/http).
		client.Transport.(*http.Transport).TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec
		resp, err := client.Do(req)
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode >= 200 && resp.StatusCode < 400
	case pr.TCPSocket != nil:
		if pr.TCPSocket.Host != "" {
			host = pr.TCPSocket.Host
		}
		port, err := probePort(pr.TCPSocket.Port, &c.spec)
		if err != nil {
			return false
		}
		conn, err := dialIn(ctx, p.node.ns, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			return false
		}
		_ = conn.Close()
		return true
	case pr.Exec != nil && len(pr.Exec.Command) > 0:
		code, err := p.execIn(ctx, c, pr.Exec.Command, nil, nil, nil)
		return err == nil && code == 0
	}
	return false
}

// probePort resolves a probe's port (a number or a containerPort name).
func probePort(port intstr.IntOrString, c *corev1.Container) (int, error) {
	if port.Type == intstr.Int {
		return port.IntValue(), nil
	}
	for _, cp := range c.Ports {
		if cp.Name == port.StrVal {
			return int(cp.ContainerPort), nil
		}
	}
	if n, err := strconv.Atoi(port.StrVal); err == nil {
		return n, nil
	}
	return 0, fmt.Errorf("port %q not found", port.StrVal)
}
