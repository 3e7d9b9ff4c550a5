package netns

import (
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// proxyProc is a node's service proxy: a child process started in the
// node's namespace (so its nft/iptables children, netlink sockets and
// listeners are the node's), restarted when it exits.
type proxyProc struct {
	node  string
	spec  ProxyProcess
	stopc chan struct{}
	done  chan struct{}

	mu  sync.Mutex
	cmd *exec.Cmd
}

// startProxy starts nn's proxy once (Config.Proxy set).
func (r *Runtime) startProxy(nn *nodeNet) {
	if r.cfg.Proxy == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.proxies[nn.name] != nil {
		return
	}
	pp := &proxyProc{node: nn.name, spec: r.cfg.Proxy(nn.name), stopc: make(chan struct{}), done: make(chan struct{})}
	r.proxies[nn.name] = pp
	go pp.run(nn, r.cfg.Clock)
}

func (pp *proxyProc) run(nn *nodeNet, clk clock.Clock) {
	defer close(pp.done)
	backoff := time.Second
	for {
		var out io.Writer = io.Discard
		var f *os.File
		if pp.spec.Log != "" {
			if lf, err := os.OpenFile(pp.spec.Log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
				f, out = lf, lf
			}
		}
		cmd := exec.Command(pp.spec.Argv[0], pp.spec.Argv[1:]...)
		cmd.Stdout, cmd.Stderr = out, out
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		started := clk.Now()
		err := inNS(nn.ns, cmd.Start)
		if err == nil {
			pp.mu.Lock()
			pp.cmd = cmd
			pp.mu.Unlock()
			err = cmd.Wait()
		}
		if f != nil {
			_ = f.Close()
		}
		select {
		case <-pp.stopc:
			return
		default:
		}
		if clk.Since(started) > time.Minute {
			backoff = time.Second
		}
		klog.ErrorS(err, "Node's service proxy exited; restarting", "node", pp.node, "after", backoff)
		select {
		case <-pp.stopc:
			return
		case <-clk.After(backoff):
		}
		backoff = min(2*backoff, 30*time.Second)
	}
}

// stop ends the proxy: SIGTERM, then SIGKILL after 10 s.
func (pp *proxyProc) stop() {
	close(pp.stopc)
	pp.mu.Lock()
	cmd := pp.cmd
	pp.mu.Unlock()
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-pp.done:
			return
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	}
	<-pp.done
}
