package bench

import (
	"context"
	"fmt"
	"io"
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
}

// Deployment creates one Deployment of o.Replicas replicas on a fresh
// server with o.Nodes simulated nodes and prints the time until it is
// Available with every replica, then until a background delete leaves no
// pod or ReplicaSet.
func Deployment(out, progressOut io.Writer, o DeploymentConfig) error {
	c, err := startCluster(o.Nodes, o.ServerArgs, o.AgentArgs, false)
	if err != nil {
		return err
	}
	defer c.stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := startProgress(progressOut)
	defer p.stop()
	nodes := c.nodeLister(ctx)
	p.phase("waiting for nodes Ready with pod CIDRs", func() string { return countReady(nodes) })
	if _, err := waitNodesReady(ctx, c.client, nodes, o.Nodes, 5*time.Minute); err != nil {
		return err
	}
	fmt.Fprintf(out, "%d simulated nodes Ready\n", o.Nodes)
	var seen deploymentStatus
	p.phase("waiting for the Deployment to be Available", seen.counts)
	cpu, err := c.cpuMeter()
	if err != nil {
		return err
	}
	available, err := createAndWaitAvailable(ctx, c.client, o.Replicas, o.Grace, &seen)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Deployment of %d replicas on %d nodes: Available with %d/%d ready in %.2fs\n",
		o.Replicas, o.Nodes, o.Replicas, o.Replicas, available.Seconds())
	if err := printCPU(out, cpu, o.Replicas); err != nil {
		return err
	}
	p.phase("background delete: waiting for no pod or ReplicaSet", nil)
	if cpu, err = c.cpuMeter(); err != nil {
		return err
	}
	gone, err := deleteAndWaitGone(ctx, c.client)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "background delete (pods' terminationGracePeriodSeconds %d): no pod or ReplicaSet left after %.2fs\n", o.Grace, gone.Seconds())
	return printCPU(out, cpu, o.Replicas)
}

func printCPU(out io.Writer, cpu *cpuMeter, pods int) error {
	s, err := cpu.report(pods, "pod")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "  CPU: %s\n", s)
	return nil
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
