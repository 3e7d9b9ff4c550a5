package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// ServerConfig is `svcplane bench server`'s settings.
type ServerConfig struct {
	// Runs is the number of fresh starts.
	Runs int
	// Idle is how long the server idles before its RSS is read, at
	// start and again after the kubectl round.
	Idle time.Duration
	// Kubectl is the kubectl binary of the kubectl round; "" skips it.
	Kubectl string
	// Against: svcplane (default), upstream (kube-apiserver, etcd and
	// kube-controller-manager from Upstream) or both, in turn, printed
	// side by side.
	Against  string
	Upstream UpstreamConfig
}

// Server starts `svcplane server` on a fresh embedded etcd cfg.Runs
// times and prints the time to /readyz 200, the RSS after idling, then
// the RSS after the kubectl round and as long again idle; with
// cfg.Against upstream or both, the same for kube-apiserver, etcd and
// kube-controller-manager, then both side by side.
func Server(out, progress io.Writer, cfg ServerConfig) error {
	list, err := sides(cfg.Against)
	if err != nil {
		return err
	}
	var bins upstreamBinaries
	if slices.Contains(list, SideUpstream) {
		if bins, err = cfg.Upstream.resolve(); err != nil {
			return err
		}
	}
	p := startProgress(progress)
	defer p.stop()
	t := sideTable{head: []string{""}}
	var runs [][]serverRun
	var notes [][]string
	for _, side := range list {
		if len(list) > 1 {
			fmt.Fprintf(out, "== %s ==\n", side)
		}
		var rs []serverRun
		for i := 0; i < cfg.Runs; i++ {
			p.phase(fmt.Sprintf("%s server run %d of %d", side, i+1, cfg.Runs), nil)
			r, err := serverOnce(side, bins, cfg.Upstream.APIServerArgs, cfg.Idle, cfg.Kubectl)
			if err != nil {
				return fmt.Errorf("%s side: %w", side, err)
			}
			fmt.Fprintf(out, "run %d: readyz 200 after %.3fs; RSS after %s idle: %s", i+1, r.ready.Seconds(), cfg.Idle, r.describe(r.idle))
			if r.commands > 0 {
				fmt.Fprintf(out, "; after %d kubectl commands and %s idle: %s", r.commands, cfg.Idle, r.describe(r.afterKubectl))
			}
			fmt.Fprintln(out)
			rs = append(rs, r)
		}
		t.head = append(t.head, side)
		runs = append(runs, rs)
		notes = append(notes, rs[0].notes)
	}
	if len(list) > 1 || list[0] == SideUpstream {
		fmt.Fprintf(out, "\n%d runs each, figures per run:\n", cfg.Runs)
		serverTable(&t, runs)
		t.print(out)
		for i, side := range list {
			for _, n := range notes[i] {
				fmt.Fprintf(out, "%s: %s\n", side, n)
			}
		}
	}
	return nil
}

// serverTable adds the rows of `bench server`'s side-by-side table.
func serverTable(t *sideTable, runs [][]serverRun) {
	row := func(label string, f func(r serverRun) string) {
		cells := []string{label}
		for _, rs := range runs {
			var vs []string
			for _, r := range rs {
				vs = append(vs, f(r))
			}
			cells = append(cells, strings.Join(vs, ", "))
		}
		t.add(cells...)
	}
	side := []string{"server side"}
	for _, rs := range runs {
		side = append(side, rs[0].processes)
	}
	t.add(side...)
	row("/readyz 200 after start (s)", func(r serverRun) string { return fmt.Sprintf("%.2f", r.ready.Seconds()) })
	row("RSS idle, total (MB)", func(r serverRun) string { return fmt.Sprintf("%.0f", mb(total(r.idle).rss)) })
	if len(runs[0]) > 0 && runs[0][0].commands > 0 {
		row("RSS after the kubectl round, total (MB)", func(r serverRun) string { return fmt.Sprintf("%.0f", mb(total(r.afterKubectl).rss)) })
		row("  of which anonymous (MB)", func(r serverRun) string { return fmt.Sprintf("%.0f", mb(total(r.afterKubectl).anon)) })
		var names []string
		for _, rs := range runs {
			for _, n := range rs[0].names {
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
		for _, n := range names {
			row("  "+n+" after the round (MB)", func(r serverRun) string {
				if i := slices.Index(r.names, n); i >= 0 {
					return fmt.Sprintf("%.0f", mb(r.afterKubectl[i].rss))
				}
				return "—"
			})
		}
	}
}

// serverRun is one start's figures; idle and afterKubectl hold each of
// the side's processes (names).
type serverRun struct {
	ready        time.Duration
	names        []string
	processes    string
	notes        []string
	idle         []memory
	commands     int
	afterKubectl []memory
}

// describe renders a memory reading: the one process's, or the total and
// each process's.
func (r serverRun) describe(ms []memory) string {
	if len(ms) == 1 {
		return ms[0].String()
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = fmt.Sprintf("%s %.1f", r.names[i], mb(m.rss))
	}
	return fmt.Sprintf("%s [%s MB]", total(ms), strings.Join(parts, ", "))
}

// total sums the readings.
func total(ms []memory) memory {
	var t memory
	for _, m := range ms {
		t.rss, t.anon, t.file = t.rss+m.rss, t.anon+m.anon, t.file+m.file
	}
	return t
}

// memory is a process's VmRSS with its anonymous and file-backed parts
// (the file part is mostly the binary's own pages).
type memory struct{ rss, anon, file int64 }

func readMemory(pid int) (memory, error) {
	var m memory
	var err error
	if m.rss, err = statusBytes(pid, "VmRSS"); err != nil {
		return m, err
	}
	if m.anon, err = statusBytes(pid, "RssAnon"); err != nil {
		return m, err
	}
	m.file, err = statusBytes(pid, "RssFile")
	return m, err
}

func (m memory) String() string {
	return fmt.Sprintf("RSS %.1f MB (anon %.1f, file %.1f)", mb(m.rss), mb(m.anon), mb(m.file))
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// server is a `svcplane server` process on a fresh data dir.
type server struct {
	proc   *exec.Cmd
	dir    string
	config *rest.Config
	client kubernetes.Interface
	// ready is the time from exec to the first 200 from /readyz (the
	// upstream side: from etcd's exec).
	ready time.Duration
	// upstream: the server is kube-apiserver (proc) with etcd and a
	// controller manager; nil for `svcplane server`.
	upstream *upstreamProcs
	// log is the svcplane server's log (its stderr), removed by stop
	// unless keepLog.
	log     string
	keepLog bool
}

// proc is one process of a server side, by name.
type proc struct {
	name string
	pid  int
}

// procs are the server side's processes: the svcplane server alone (API
// server, controllers and embedded etcd in one), or kube-apiserver, etcd,
// and kube-controller-manager and kube-scheduler when they run.
func (b *server) procs() []proc {
	u := b.upstream
	if u == nil {
		return []proc{{"svcplane server", b.proc.Process.Pid}}
	}
	ps := []proc{{"kube-apiserver", u.apiserver.pid()}, {"etcd", u.etcd.pid()}}
	if u.controller != nil {
		ps = append(ps, proc{"kube-controller-manager", u.controller.pid()})
	}
	if u.scheduler != nil {
		ps = append(ps, proc{"kube-scheduler", u.scheduler.pid()})
	}
	return ps
}

func procNames(ps []proc) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.name
	}
	return out
}

func procPIDs(ps []proc) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = p.pid
	}
	return out
}

// hasControllers tells whether the server side runs the controllers
// (svcplane always; upstream with kube-controller-manager).
func (b *server) hasControllers() bool {
	return b.upstream == nil || b.upstream.controller != nil
}

// startServer starts a server process with extra flags on a new data dir
// and waits for /readyz.
func startServer(extra ...string) (*server, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "svcplane-bench-")
	if err != nil {
		return nil, err
	}
	args := append([]string{"server", "--data-dir", dir, "--secure-port", "0", "--bind-address", "127.0.0.1"}, extra...)
	b := &server{proc: exec.Command(self, args...), dir: dir}
	dieWithParent(b.proc)
	logf, err := os.CreateTemp("", "svcplane-bench-server-*.log")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	defer logf.Close() // the child has its own descriptor
	b.proc.Stderr, b.log = logf, logf.Name()
	start := time.Now()
	if err := b.startAndConnect(); err != nil {
		b.stop()
		return nil, err
	}
	if err := b.waitReady(start, 60*time.Second, "svcplane server", nil); err != nil {
		b.stop()
		return nil, err
	}
	return b, nil
}

// startAndConnect starts the process, waits for its "serving on" line and
// makes the admin client from its kubeconfig.
func (b *server) startAndConnect() error {
	stdout, err := b.proc.StdoutPipe()
	if err != nil {
		return err
	}
	if err := b.proc.Start(); err != nil {
		return err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, "serving on") {
		return fmt.Errorf("server did not start: %q %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	if b.config, err = clientcmd.BuildConfigFromFlags("", filepath.Join(b.dir, "kubeconfig")); err != nil {
		return err
	}
	// The benches read core/v1 Endpoints on purpose; no deprecation lines.
	b.config.WarningHandler = rest.NoWarnings{}
	b.client, err = kubernetes.NewForConfig(b.config)
	return err
}

// waitReady polls /readyz until it answers 200 and records the time since
// start. exited, when not nil, fails the wait at once (a process of the
// server side has ended); what names the server in the timeout error.
func (b *server) waitReady(start time.Time, timeout time.Duration, what string, exited func() error) error {
	for deadline := start.Add(timeout); ; {
		_, err := b.client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(context.Background())
		if err == nil {
			b.ready = time.Since(start)
			return nil
		}
		if exited != nil {
			if e := exited(); e != nil {
				return e
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s: %v", what, timeout, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stop ends the server with SIGTERM (the upstream side's processes in
// turn) and removes its data dir.
func (b *server) stop() {
	if b.upstream != nil {
		b.upstream.stop()
	} else if b.proc.Process != nil {
		_ = b.proc.Process.Signal(syscall.SIGTERM)
		_ = b.proc.Wait()
	}
	os.RemoveAll(b.dir)
	if b.log != "" && !b.keepLog {
		os.Remove(b.log)
	}
}

// fastClient is an admin client of b without client-side rate limits,
// speaking protobuf.
func (b *server) fastClient() (kubernetes.Interface, error) {
	cfg := rest.CopyConfig(b.config)
	cfg.QPS, cfg.Burst = -1, 0
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	return kubernetes.NewForConfig(cfg)
}

// serverOnce measures one start of a side: time to /readyz 200, RSS
// after idling, then (kubectl not "") RSS after the kubectl round and
// idling again.
func serverOnce(side string, bins upstreamBinaries, apiserverArgs []string, idle time.Duration, kubectl string) (serverRun, error) {
	var b *server
	var err error
	if side == SideUpstream {
		b, err = startUpstream(bins, defaultClusterCIDR, apiserverArgs)
	} else {
		b, err = startServer()
	}
	if err != nil {
		return serverRun{}, err
	}
	defer b.stop()
	r := serverRun{ready: b.ready, processes: sideProcesses(b), notes: sideNotes(b)}
	procs := b.procs()
	for _, p := range procs {
		r.names = append(r.names, p.name)
	}
	time.Sleep(idle)
	if r.idle, err = readMemories(procs); err != nil || kubectl == "" {
		return r, err
	}
	if r.commands, err = runKubectlRound(kubectl, b); err != nil {
		return r, err
	}
	time.Sleep(idle)
	r.afterKubectl, err = readMemories(procs)
	return r, err
}

func readMemories(procs []proc) ([]memory, error) {
	out := make([]memory, len(procs))
	for i, p := range procs {
		var err error
		if out[i], err = readMemory(p.pid); err != nil {
			return nil, fmt.Errorf("%s: %w", p.name, err)
		}
	}
	return out, nil
}
