package bench

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// sideTable is figures of one or more sides in columns, a row per
// figure.
type sideTable struct {
	head []string
	rows [][]string
}

func (t *sideTable) add(row ...string) { t.rows = append(t.rows, row) }

// sideColumns is a table with a column per result (headed by side) and
// the function that adds a row: a label, then f of each result.
func sideColumns[R any](rs []R, side func(R) string) (*sideTable, func(label string, f func(R) string)) {
	t := &sideTable{head: []string{""}}
	for _, r := range rs {
		t.head = append(t.head, side(r))
	}
	return t, func(label string, f func(R) string) {
		cells := []string{label}
		for _, r := range rs {
			cells = append(cells, f(r))
		}
		t.add(cells...)
	}
}

// addNew appends to names those of more it does not hold yet.
func addNew(names, more []string) []string {
	for _, n := range more {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// printSideNotes prints a side's notes under a table, "side: note" each.
func printSideNotes(out io.Writer, side string, notes []string) {
	for _, n := range notes {
		fmt.Fprintf(out, "%s: %s\n", side, n)
	}
}

func (t sideTable) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(t.head, "\t"))
	for _, r := range t.rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	_ = tw.Flush()
}

// sideProcesses says what a side's server column includes.
func sideProcesses(b *server) string {
	u := b.upstream
	if u == nil {
		return "svcplane server: API server, controllers, embedded etcd"
	}
	out := "kube-apiserver + etcd"
	if u.controller == nil {
		out += " (no controller manager)"
	} else {
		out += " + kube-controller-manager"
	}
	if u.scheduler != nil {
		out += " + kube-scheduler"
	}
	return out
}

// sideNotes are the lines under a table that say how a side was run.
func sideNotes(b *server) []string {
	u := b.upstream
	if u == nil {
		cs, _ := svcplaneControllers()
		return []string{fmt.Sprintf("one process: API server, embedded etcd, the scheduler and %d controllers (%s); GOGC 50 (--gc-percent)", len(cs), strings.Join(cs, ","))}
	}
	notes := []string{u.versions,
		"kube-apiserver with kubeadm's --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction (svcplane's defaults) and its own other defaults: its default admission plugins (more than svcplane's: DefaultTolerationSeconds adds 2 tolerations to each pod; LimitRanger, ResourceQuota, PodSecurity, Priority …), priority and fairness on; GOGC 100 (Go's default)",
		"the node simulator's certificate: svcplane's user and group bound to system:node, plus group system:nodes (priority and fairness treats it as kubelets)"}
	if u.controller != nil {
		cs, _ := svcplaneControllers()
		notes = append(notes, fmt.Sprintf("kube-controller-manager --use-service-account-credentials with svcplane's controllers less the scheduler (%s), node IPAM on, --kube-api-qps/--kube-api-burst %s (svcplane's in-process clients have no limit)", strings.Join(cs, ","), upstreamClientQPS))
	} else {
		notes = append(notes, "no controller manager ("+u.bins.note+"): the bench patches each Node's podCIDR and creates the default ServiceAccount itself; no controller runs")
	}
	if u.scheduler != nil {
		notes = append(notes, "kube-scheduler with its default profile, --kube-api-qps/--kube-api-burst "+upstreamClientQPS)
	} else {
		notes = append(notes, "no scheduler ("+u.bins.schedulerNote+")")
	}
	return notes
}

// nodesResult is one side's figures of `bench nodes`.
type nodesResult struct {
	side, processes string
	procNames       []string
	notes           []string
	pods            int
	readyz          time.Duration
	// nodesReady: agent start → all nodes Ready with pod CIDRs; created:
	// the creates; all: first create → all pods Running and Ready.
	nodesReady, created, all time.Duration
	// p50, p99: per pod create→Ready (s); mutating requests and their
	// p50/p99 (s).
	p50, p99                 float64
	mutating, mutP50, mutP99 float64
	// before, now, peak: the server side's RSS, the total then each
	// process (procNames).
	before, now, peak []int64
	agentPeak         int64
	// cpu: CPU seconds from the first create until all pods were Ready,
	// each process of procNames, then the agent.
	cpu                      []float64
	readyzOK, readyzFail     int
	notReadyRun, notReadyEnd int
	notReadyHold             int
	held                     bool
}

func newNodesResult(side string, b *server, pods int) *nodesResult {
	r := &nodesResult{side: side, processes: sideProcesses(b), notes: sideNotes(b), readyz: b.ready, pods: pods}
	for _, p := range b.procs() {
		r.procNames = append(r.procNames, p.name)
	}
	return r
}

// observe takes /readyz and NotReady counts from run, at the end of the
// run or (hold) of the hold.
func (r *nodesResult) observe(run *benchRun, hold bool) {
	run.mu.Lock()
	defer run.mu.Unlock()
	r.readyzOK, r.readyzFail, r.notReadyEnd = run.readyzOK, run.readyzFail, run.lastNotRdy
	if hold {
		r.held, r.notReadyHold = true, run.maxNotReady
	} else {
		r.notReadyRun = run.maxNotReady
	}
}

// kbPerPod is rss over the RSS before the pods, per pod.
func (r *nodesResult) kbPerPod(rss int64) float64 {
	if r.pods == 0 || len(r.before) == 0 {
		return 0
	}
	return float64(rss-r.before[0]) / 1024 / float64(r.pods)
}

// procRSS is the named process's figure of rss (a before/now/peak
// slice), or "" when the side has no such process.
func (r *nodesResult) procRSS(rss []int64, name string) string {
	for i, n := range r.procNames {
		if n == name && i+1 < len(rss) {
			return fmt.Sprintf("%.0f", mb(rss[i+1]))
		}
	}
	return ""
}

// nodesTable puts the sides' figures in columns.
func nodesTable(rs []*nodesResult) sideTable {
	t, row := sideColumns(rs, func(r *nodesResult) string { return r.side })
	var names []string
	for _, r := range rs {
		names = addNew(names, r.procNames)
	}
	secs := func(d time.Duration) string { return fmt.Sprintf("%.1f", d.Seconds()) }
	row("server side", func(r *nodesResult) string { return r.processes })
	row("/readyz 200 after start (s)", func(r *nodesResult) string { return fmt.Sprintf("%.2f", r.readyz.Seconds()) })
	row("nodes Ready with pod CIDRs (s)", func(r *nodesResult) string { return secs(r.nodesReady) })
	row("pods created (s; pods/s)", func(r *nodesResult) string {
		return fmt.Sprintf("%s; %.0f", secs(r.created), float64(r.pods)/r.created.Seconds())
	})
	row("all pods Running+Ready after 1st create (s)", func(r *nodesResult) string { return secs(r.all) })
	row("per pod create→Ready p50 / p99 (s)", func(r *nodesResult) string { return fmt.Sprintf("%.2f / %.2f", r.p50, r.p99) })
	row("mutating requests: count, p50 / p99 (ms)", func(r *nodesResult) string {
		return fmt.Sprintf("%.0f, %.0f / %.0f", r.mutating, 1000*r.mutP50, 1000*r.mutP99)
	})
	row("server-side CPU, 1st create → all Ready (s; ms per pod)", func(r *nodesResult) string {
		total := 0.0
		for _, c := range r.cpu[:len(r.cpu)-1] {
			total += c
		}
		return fmt.Sprintf("%.1f; %.2f", total, perObjectMS(total, r.pods))
	})
	for _, n := range names {
		row("  "+n+" CPU (s)", func(r *nodesResult) string {
			if i := slices.Index(r.procNames, n); i >= 0 {
				return fmt.Sprintf("%.1f", r.cpu[i])
			}
			return "—"
		})
	}
	row("agent CPU (s; ms per pod)", func(r *nodesResult) string {
		a := r.cpu[len(r.cpu)-1]
		return fmt.Sprintf("%.1f; %.2f", a, perObjectMS(a, r.pods))
	})
	row("server-side RSS before pods / now / peak (MB)", func(r *nodesResult) string {
		return fmt.Sprintf("%.0f / %.0f / %.0f", mb(r.before[0]), mb(r.now[0]), mb(r.peak[0]))
	})
	for _, n := range names {
		row("  "+n+" before / now / peak (MB)", func(r *nodesResult) string {
			if b := r.procRSS(r.before, n); b != "" {
				return b + " / " + r.procRSS(r.now, n) + " / " + r.procRSS(r.peak, n)
			}
			return "—"
		})
	}
	row("KB per pod over before (now / peak)", func(r *nodesResult) string {
		return fmt.Sprintf("%.1f / %.1f", r.kbPerPod(r.now[0]), r.kbPerPod(r.peak[0]))
	})
	row("/readyz 200 / failed (1 s samples)", func(r *nodesResult) string { return fmt.Sprintf("%d / %d", r.readyzOK, r.readyzFail) })
	row("NotReady nodes max: run / hold / end", func(r *nodesResult) string {
		hold := "—"
		if r.held {
			hold = fmt.Sprint(r.notReadyHold)
		}
		return fmt.Sprintf("%d / %s / %d", r.notReadyRun, hold, r.notReadyEnd)
	})
	row("agent max RSS (MB)", func(r *nodesResult) string { return fmt.Sprintf("%.0f", mb(r.agentPeak)) })
	return *t
}
