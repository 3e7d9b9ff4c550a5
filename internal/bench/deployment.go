package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// DeploymentConfig is `svcplane bench deployment`'s settings.
type DeploymentConfig struct {
	// Nodes simulated in one agent process; Replicas of the Deployment.
	Nodes, Replicas int
	// Grace is the pods' terminationGracePeriodSeconds.
	Grace int64
	// ServerArgs and AgentArgs are extra flags of the server and of
	// `svcplane node`.
	ServerArgs, AgentArgs []string
	// Against: svcplane (default), upstream (kube-apiserver, etcd,
	// kube-controller-manager and kube-scheduler from Upstream) or both,
	// in turn, printed side by side.
	Against  string
	Upstream UpstreamConfig
}

// deploymentResult is one side's figures of `bench deployment`.
type deploymentResult struct {
	side, processes string
	notes           []string
	// procNames: the server side's processes, then "agent", as cpu.
	procNames []string
	pods      int
	// available: create → Available with every replica; gone: delete →
	// no pod or ReplicaSet left.
	available, gone time.Duration
	// createCPU, deleteCPU: CPU seconds of each of procNames in the two
	// phases; createMutating, deleteMutating: mutating requests the
	// server side served in them.
	createCPU, deleteCPU           []float64
	createMutating, deleteMutating float64
}

// Deployment creates one Deployment of o.Replicas replicas on a fresh
// server with o.Nodes simulated nodes and prints the time until it is
// Available with every replica, then until a background delete leaves no
// pod or ReplicaSet; with o.Against upstream or both, the same on
// kube-apiserver, etcd, kube-controller-manager and kube-scheduler, then
// both side by side.
func Deployment(out, progressOut io.Writer, o DeploymentConfig) error {
	list, err := sides(o.Against)
	if err != nil {
		return err
	}
	var bins upstreamBinaries
	if slices.Contains(list, SideUpstream) {
		if bins, err = o.Upstream.resolve(); err != nil {
			return err
		}
		if bins.controllerManager == "" {
			return fmt.Errorf("the upstream side needs kube-controller-manager for the Deployment and ReplicaSet controllers, and it has none (%s)", bins.note)
		}
		if bins.scheduler == "" {
			return fmt.Errorf("the upstream side needs kube-scheduler to bind the pods, and it has none (%s)", bins.schedulerNote)
		}
	}
	results, err := eachSide(out, list, func(side string) (*deploymentResult, error) {
		return deploymentOnce(out, progressOut, o, side, bins)
	})
	if err != nil {
		return err
	}
	if len(results) > 1 || list[0] == SideUpstream {
		fmt.Fprintf(out, "\nDeployment of %d replicas on %d simulated nodes:\n", o.Replicas, o.Nodes)
		deploymentTable(results).print(out)
		for _, r := range results {
			printSideNotes(out, r.side, r.notes)
		}
	}
	return nil
}

// deploymentOnce is one side's run.
func deploymentOnce(out, progressOut io.Writer, o DeploymentConfig, side string, bins upstreamBinaries) (*deploymentResult, error) {
	c, err := startSideCluster(side, bins, o.Upstream.APIServerArgs, o.ServerArgs, o.Nodes, o.AgentArgs, false)
	if err != nil {
		return nil, err
	}
	defer c.stop()
	if u := c.server.upstream; u != nil {
		fmt.Fprintln(out, u.versions)
	}
	procs := c.server.procs()
	r := &deploymentResult{side: side, processes: sideProcesses(c.server), notes: sideNotes(c.server),
		procNames: append(procNames(procs), "agent"), pods: o.Replicas}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := startProgress(progressOut)
	defer p.stop()
	nodes := c.nodeLister(ctx)
	p.phase("waiting for nodes Ready with pod CIDRs", func() string { return countReady(nodes) })
	if _, err := waitNodesReady(ctx, c.client, nodes, o.Nodes, 5*time.Minute); err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "%d simulated nodes Ready\n", o.Nodes)
	var seen deploymentStatus
	p.phase("waiting for the Deployment to be Available", seen.counts)
	phase := func(run func() (time.Duration, error)) (time.Duration, []float64, float64, error) {
		cpu, err := startCPUMeter(r.procNames, append(procPIDs(procs), c.agent.Process.Pid))
		if err != nil {
			return 0, nil, 0, err
		}
		before, err := scrapeMutatingLatency(ctx, c.client)
		if err != nil {
			return 0, nil, 0, err
		}
		took, err := run()
		if err != nil {
			return 0, nil, 0, err
		}
		used, err := cpu.used()
		if err != nil {
			return 0, nil, 0, err
		}
		after, err := scrapeMutatingLatency(ctx, c.client)
		if err != nil {
			return 0, nil, 0, err
		}
		mutating := after.since(before).count()
		fmt.Fprintf(out, "  CPU: %s; %.0f mutating requests (%.2f per pod)\n", cpu.describe(used, o.Replicas, "pod"), mutating, mutating/float64(max(o.Replicas, 1)))
		return took, used, mutating, nil
	}
	r.available, r.createCPU, r.createMutating, err = phase(func() (time.Duration, error) {
		took, err := createAndWaitAvailable(ctx, c.client, o.Replicas, o.Grace, &seen)
		if err == nil {
			fmt.Fprintf(out, "Deployment of %d replicas on %d nodes: Available with %d/%d ready in %.2fs\n",
				o.Replicas, o.Nodes, o.Replicas, o.Replicas, took.Seconds())
		}
		return took, err
	})
	if err != nil {
		return nil, err
	}
	p.phase("background delete: waiting for no pod or ReplicaSet", nil)
	r.gone, r.deleteCPU, r.deleteMutating, err = phase(func() (time.Duration, error) {
		took, err := deleteAndWaitGone(ctx, c.client)
		if err == nil {
			fmt.Fprintf(out, "background delete (pods' terminationGracePeriodSeconds %d): no pod or ReplicaSet left after %.2fs\n", o.Grace, took.Seconds())
		}
		return took, err
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// deploymentTable puts the sides' figures in columns.
func deploymentTable(rs []*deploymentResult) sideTable {
	t, row := sideColumns(rs, func(r *deploymentResult) string { return r.side })
	var names []string
	for _, r := range rs {
		names = addNew(names, r.procNames[:len(r.procNames)-1])
	}
	row("server side", func(r *deploymentResult) string { return r.processes })
	for _, ph := range []struct {
		name     string
		took     func(r *deploymentResult) time.Duration
		cpu      func(r *deploymentResult) []float64
		mutating func(r *deploymentResult) float64
	}{
		{"Available with every replica", func(r *deploymentResult) time.Duration { return r.available },
			func(r *deploymentResult) []float64 { return r.createCPU }, func(r *deploymentResult) float64 { return r.createMutating }},
		{"background delete, none left", func(r *deploymentResult) time.Duration { return r.gone },
			func(r *deploymentResult) []float64 { return r.deleteCPU }, func(r *deploymentResult) float64 { return r.deleteMutating }},
	} {
		row(ph.name+" (s)", func(r *deploymentResult) string { return fmt.Sprintf("%.1f", ph.took(r).Seconds()) })
		row("  mutating requests (per pod)", func(r *deploymentResult) string {
			return fmt.Sprintf("%.0f (%.2f)", ph.mutating(r), ph.mutating(r)/float64(max(r.pods, 1)))
		})
		row("  server-side CPU (s; ms per pod)", func(r *deploymentResult) string {
			cpu := ph.cpu(r)
			total := 0.0
			for _, c := range cpu[:len(cpu)-1] {
				total += c
			}
			return fmt.Sprintf("%.1f; %.2f", total, perObjectMS(total, r.pods))
		})
		for _, n := range names {
			row("    "+n+" CPU (s)", func(r *deploymentResult) string {
				if i := slices.Index(r.procNames, n); i >= 0 && i < len(r.procNames)-1 {
					return fmt.Sprintf("%.1f", ph.cpu(r)[i])
				}
				return "—"
			})
		}
		row("  agent CPU (s; ms per pod)", func(r *deploymentResult) string {
			cpu := ph.cpu(r)
			a := cpu[len(cpu)-1]
			return fmt.Sprintf("%.1f; %.2f", a, perObjectMS(a, r.pods))
		})
	}
	return *t
}

// deploymentStatus is the last status the watch saw, for progress lines.
type deploymentStatus struct {
	mu sync.Mutex
	st appsv1.DeploymentStatus
}

func (d *deploymentStatus) set(st appsv1.DeploymentStatus) {
	d.mu.Lock()
	d.st = st
	d.mu.Unlock()
}

func (d *deploymentStatus) counts() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return fmt.Sprintf("%d replicas, %d updated, %d available", d.st.Replicas, d.st.UpdatedReplicas, d.st.AvailableReplicas)
}

const benchDeploymentNS = "bench-deployment"

// createAndWaitAvailable creates the Deployment and returns the time until
// its status shows every replica updated and available at its generation.
func createAndWaitAvailable(ctx context.Context, client kubernetes.Interface, replicas int, grace int64, seen *deploymentStatus) (time.Duration, error) {
	if err := createPodNamespace(ctx, client, benchDeploymentNS); err != nil {
		return 0, err
	}
	labels := map[string]string{"app": "bench"}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "bench"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To(int32(replicas)), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr.To(grace), Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}}}}}
	start := time.Now()
	created, err := client.AppsV1().Deployments(benchDeploymentNS).Create(ctx, d, metav1.CreateOptions{})
	if err != nil {
		return 0, err
	}
	w, err := client.AppsV1().Deployments(benchDeploymentNS).Watch(ctx, metav1.ListOptions{
		FieldSelector: "metadata.name=bench", ResourceVersion: created.ResourceVersion})
	if err != nil {
		return 0, err
	}
	defer w.Stop()
	timeout := time.After(5 * time.Minute)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return 0, fmt.Errorf("watch of the Deployment ended")
			}
			d, ok := ev.Object.(*appsv1.Deployment)
			if !ok {
				continue
			}
			seen.set(d.Status)
			if complete(d, int32(replicas)) {
				return time.Since(start), nil
			}
		case <-timeout:
			return 0, fmt.Errorf("Deployment not Available with all replicas after 5m")
		}
	}
}

func complete(d *appsv1.Deployment, n int32) bool {
	if d.Status.ObservedGeneration < d.Generation || d.Status.UpdatedReplicas != n || d.Status.AvailableReplicas != n || d.Status.Replicas != n {
		return false
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// deleteAndWaitGone deletes the Deployment (background propagation, the
// default) and returns the time until no pod or ReplicaSet is left.
func deleteAndWaitGone(ctx context.Context, client kubernetes.Interface) (time.Duration, error) {
	start := time.Now()
	if err := client.AppsV1().Deployments(benchDeploymentNS).Delete(ctx, "bench", metav1.DeleteOptions{
		PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}); err != nil {
		return 0, err
	}
	for deadline := start.Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		pods, err := client.CoreV1().Pods(benchDeploymentNS).List(ctx, metav1.ListOptions{Limit: 1})
		if err != nil {
			return 0, err
		}
		sets, err := client.AppsV1().ReplicaSets(benchDeploymentNS).List(ctx, metav1.ListOptions{Limit: 1})
		if err != nil {
			return 0, err
		}
		if len(pods.Items) == 0 && len(sets.Items) == 0 {
			return time.Since(start), nil
		}
	}
	return 0, fmt.Errorf("pods or ReplicaSets still there 5m after the delete")
}
