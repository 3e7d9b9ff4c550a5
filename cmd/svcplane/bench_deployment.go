package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

type benchDeploymentOptions struct {
	nodes, replicas       int
	grace                 int64
	serverArgs, agentArgs []string
}

func newBenchDeploymentCommand() *cobra.Command {
	o := &benchDeploymentOptions{nodes: 100, replicas: 1000, grace: 1}
	cmd := &cobra.Command{
		Use:   "deployment",
		Short: "On a fresh server with N simulated nodes, create one Deployment of R replicas; print the time until it is Available with every replica, then until a background delete leaves no pod or ReplicaSet",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkNodeCount(o.nodes, 1); err != nil {
				return err
			}
			return benchDeployment(cmd.OutOrStdout(), o)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.nodes, "nodes", o.nodes, "Simulated nodes (one agent process).")
	f.IntVar(&o.replicas, "replicas", o.replicas, "Replicas of the Deployment.")
	f.Int64Var(&o.grace, "termination-grace-period", o.grace, "terminationGracePeriodSeconds of the pods: a simulated pod serves until it ends, like a process that ignores SIGTERM (a pause container exits at once).")
	f.StringArrayVar(&o.serverArgs, "server-arg", nil, "Extra flag for the server (repeatable).")
	f.StringArrayVar(&o.agentArgs, "agent-arg", nil, "Extra flag for `svcplane node` (repeatable).")
	return cmd
}

func benchDeployment(out io.Writer, o *benchDeploymentOptions) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	b, err := startBenchServer(self, o.serverArgs...)
	if err != nil {
		return err
	}
	defer b.stop()
	logf, err := os.CreateTemp("", "svcplane-bench-agent-*.log")
	if err != nil {
		return err
	}
	defer os.Remove(logf.Name())
	agent, err := startBenchAgent(self, b, o.nodes, logf, o.agentArgs...)
	if err != nil {
		return err
	}
	defer func() { _ = agent.Process.Signal(syscall.SIGTERM); _ = agent.Wait() }()
	client, err := b.fastClient()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	nf := informers.NewSharedInformerFactory(client, 0)
	nodes := nf.Core().V1().Nodes().Lister()
	nf.Start(ctx.Done())
	nf.WaitForCacheSync(ctx.Done())
	if _, err := waitNodesReady(ctx, nodes, o.nodes, 5*time.Minute); err != nil {
		return err
	}
	fmt.Fprintf(out, "%d simulated nodes Ready\n", o.nodes)
	available, err := createAndWaitAvailable(ctx, client, o.replicas, o.grace)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Deployment of %d replicas on %d nodes: Available with %d/%d ready in %.2fs\n",
		o.replicas, o.nodes, o.replicas, o.replicas, available.Seconds())
	gone, err := deleteAndWaitGone(ctx, client)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "background delete (pods' terminationGracePeriodSeconds %d): no pod or ReplicaSet left after %.2fs\n", o.grace, gone.Seconds())
	return nil
}

const benchDeploymentNS = "bench-deployment"

// createAndWaitAvailable creates the Deployment and returns the time until
// its status shows every replica updated and available at its generation.
func createAndWaitAvailable(ctx context.Context, client kubernetes.Interface, replicas int, grace int64) (time.Duration, error) {
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: benchDeploymentNS}}, metav1.CreateOptions{}); err != nil {
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
			if d, ok := ev.Object.(*appsv1.Deployment); ok && complete(d, int32(replicas)) {
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
