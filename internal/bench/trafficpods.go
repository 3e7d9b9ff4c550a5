package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/vishvananda/netns"
)

// The traffic bench's objects: a server pod on one node behind a
// ClusterIP Service, a client pod on another. Both run `sleep` from the
// host (the netns runtime runs a host program in the pod's namespace);
// the bench enters their namespaces through that process and opens its
// sockets there.
const (
	trafficNamespace = "bench-traffic"
	trafficService   = "traffic"
	// sinkPort and echoPort are the server pod's ports behind the
	// Service's 80 and 81 (the DNAT rewrites the port too). The pod IP
	// figures go to the same servers on other ports (directSinkPort,
	// directEchoPort): a connection to the pod IP and one through the
	// ClusterIP that happen to get the same source port would share a
	// conntrack tuple after the DNAT, and conntrack drops the later
	// one's SYNs as a clash while the first is remembered (TIME_WAIT,
	// 120 s) — on any Linux node, with any proxy. The new-connection
	// latency run opens thousands to each, alternating.
	sinkPort, echoPort               = 5201, 5202
	directSinkPort, directEchoPort   = 5211, 5212
	serviceSinkPort, serviceEchoPort = 80, 81
	// trafficMarker names the bench's pods' processes in their
	// environment: <marker>=<bench pid>/<pod>.
	trafficMarker = "SVCPLANE_BENCH_TRAFFIC"
)

// trafficPod is one of the bench's pods once Running.
type trafficPod struct {
	name, node, ip string
	ns             netns.NsHandle
}

func trafficPodObject(name, node string, labels map[string]string, ports ...int32) *corev1.Pod {
	c := corev1.Container{Name: "main", Image: "busybox", Command: []string{"sleep", "1000000"},
		Env: []corev1.EnvVar{{Name: trafficMarker, Value: fmt.Sprintf("%d/%s", os.Getpid(), name)}}}
	for _, p := range ports {
		c.Ports = append(c.Ports, corev1.ContainerPort{ContainerPort: p, Protocol: corev1.ProtocolTCP})
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{c}, TerminationGracePeriodSeconds: ptr.To[int64](1)}}
}

// createTrafficObjects makes the server pod on serverNode, the Service
// in front of it and the client pod on clientNode, and returns the
// Service's ClusterIP.
func createTrafficObjects(ctx context.Context, client kubernetes.Interface, clientNode, serverNode string) (string, error) {
	if err := createPodNamespace(ctx, client, trafficNamespace); err != nil {
		return "", err
	}
	labels := map[string]string{"app": "traffic-server"}
	pods := client.CoreV1().Pods(trafficNamespace)
	if _, err := pods.Create(ctx, trafficPodObject("traffic-server", serverNode, labels, sinkPort, echoPort, directSinkPort, directEchoPort), metav1.CreateOptions{}); err != nil {
		return "", err
	}
	if _, err := pods.Create(ctx, trafficPodObject("traffic-client", clientNode, nil), metav1.CreateOptions{}); err != nil {
		return "", err
	}
	svc, err := client.CoreV1().Services(trafficNamespace).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: trafficService},
		Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{
			{Name: "bulk", Port: serviceSinkPort, TargetPort: intstr.FromInt32(sinkPort)},
			{Name: "echo", Port: serviceEchoPort, TargetPort: intstr.FromInt32(echoPort)},
		}}}, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	return svc.Spec.ClusterIP, nil
}

// waitTrafficPod waits until the pod is Running with an IP, finds its
// process and opens its network namespace.
func waitTrafficPod(ctx context.Context, client kubernetes.Interface, name string) (*trafficPod, error) {
	var pod *corev1.Pod
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := client.CoreV1().Pods(trafficNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		pod = p
		return p.Status.Phase == corev1.PodRunning && p.Status.PodIP != "", nil
	})
	if err != nil {
		phase := "not created"
		if pod != nil {
			phase = fmt.Sprintf("phase %s, IP %q, %v", pod.Status.Phase, pod.Status.PodIP, pod.Status.ContainerStatuses)
		}
		return nil, fmt.Errorf("pod %s not Running with an IP: %s: %w", name, phase, err)
	}
	// The status may say Running a moment before the process is there.
	var pid int
	marker := fmt.Sprintf("%s=%d/%s", trafficMarker, os.Getpid(), name)
	var ferr error
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		pid, ferr = findMarkedProcess(marker)
		return ferr == nil, nil
	})
	if err != nil {
		return nil, fmt.Errorf("pod %s: %w", name, ferr)
	}
	ns, err := netns.GetFromPath(fmt.Sprintf("/proc/%d/ns/net", pid))
	if err != nil {
		return nil, fmt.Errorf("pod %s: its process %d's network namespace: %w", name, pid, err)
	}
	return &trafficPod{name: name, node: pod.Spec.NodeName, ip: pod.Status.PodIP, ns: ns}, nil
}

// findMarkedProcess is the process whose environment holds entry.
func findMarkedProcess(entry string) (int, error) {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil {
			continue
		}
		for _, e := range strings.Split(string(env), "\x00") {
			if e == entry {
				return strconv.Atoi(filepath.Base(d))
			}
		}
	}
	return 0, fmt.Errorf("no process with %s in its environment", entry)
}
