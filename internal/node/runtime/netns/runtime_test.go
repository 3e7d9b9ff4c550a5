package netns

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/svcplane/svcplane/internal/node/container"
	"github.com/svcplane/svcplane/internal/testutil"
)

// lab is a runtime whose "host" is a network namespace the test made.
type lab struct {
	r    *Runtime
	host netns.NsHandle

	mu      sync.Mutex
	changes map[string]int
}

func newLab(t *testing.T) *lab {
	t.Helper()
	testutil.SkipShort(t, "makes network namespaces")
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces")
	}
	host, err := newNS()
	if err != nil {
		t.Fatal(err)
	}
	l := &lab{host: host, changes: map[string]int{}}
	// New takes the calling thread's namespace as the host's.
	err = inNS(host, func() (err error) {
		l.r, err = New(Config{Client: fake.NewClientset(), Bridge: "svcpt0",
			DNS: DNS{ClusterDNS: []string{"10.96.0.10"}, ClusterDomain: "cluster.local", Host: []byte("nameserver 192.0.2.53\n")}})
		return err
	})
	if err != nil {
		host.Close()
		t.Fatal(err)
	}
	l.r.SetOnChange(func(ns, name string) {
		l.mu.Lock()
		l.changes[ns+"/"+name]++
		l.mu.Unlock()
	})
	t.Cleanup(func() {
		_ = l.r.Close()
		host.Close()
	})
	for i, cidr := range []string{"10.244.0.0/24", "10.244.1.0/24"} {
		name, ip := "n"+string(rune('0'+i)), "10.250.0."+string(rune('2'+i))
		if err := l.r.SetNode(name, []string{cidr}, []string{ip}); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func (l *lab) run(t *testing.T, name, node string, policy corev1.RestartPolicy, cs ...corev1.Container) *corev1.Pod {
	t.Helper()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec: corev1.PodSpec{NodeName: node, RestartPolicy: policy, Containers: cs}}
	return l.start(t, p)
}

// start runs p and records its address in its status.
func (l *lab) start(t *testing.T, p *corev1.Pod) *corev1.Pod {
	t.Helper()
	rec, err := l.r.RunPod(p)
	if err != nil {
		t.Fatal(err)
	}
	p.Status.PodIP = rec.IPs[0]
	return p
}

func (l *lab) state(t *testing.T, p *corev1.Pod) container.PodState {
	t.Helper()
	s, ok := l.r.PodState(p.UID)
	if !ok {
		t.Fatalf("pod %s not running", p.Name)
	}
	return s
}

// get is an HTTP GET from the lab's host namespace.
func (l *lab) get(url string) (string, error) {
	resp, err := httpClient(l.host, 3*time.Second).Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

var agnhostImage = "registry.k8s.io/e2e-test-images/agnhost:2.53"

func TestPodsServeAcrossNodesAndFromTheHost(t *testing.T) {
	l := newLab(t)
	web := l.run(t, "web", "n0", "", corev1.Container{Name: "app", Image: agnhostImage, Args: []string{"netexec", "--http-port=8080", "--udp-port=8081"},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}}, PeriodSeconds: 1}})
	other := l.run(t, "other", "n1", "", corev1.Container{Name: "app", Image: "nginx", Ports: []corev1.ContainerPort{{ContainerPort: 80}}})
	testutil.Eventually(t, 20*time.Second, "web ready by its readiness probe", func() bool { return l.state(t, web).Ready() })
	if s := l.state(t, web); s.Phase != corev1.PodRunning || s.Containers[0].State.Running == nil || !*s.Containers[0].Started {
		t.Fatalf("web state %+v", s)
	}
	testutil.EventuallyErr(t, 10*time.Second, "host reaches web", func() error {
		got, err := l.get("http://" + web.Status.PodIP + ":8080/hostname")
		if err == nil && got != "web" {
			t.Fatalf("/hostname = %q", got)
		}
		return err
	})
	// Pod to pod across nodes (host-gw routes), TCP and UDP.
	got, err := l.get("http://" + web.Status.PodIP + ":8080/dial?request=x&host=" + other.Status.PodIP + "&port=80&tries=2")
	if err != nil || got != `{"responses":["other","other"]}` {
		t.Fatalf("web → other over HTTP: %q %v", got, err)
	}
	if got, _ := l.get("http://" + web.Status.PodIP + ":8080/clientip"); !strings.HasPrefix(got, "10.250.0.1:") {
		t.Fatalf("the host's requests should come from the bridge address, got %q", got)
	}
	l.mu.Lock()
	changes := l.changes["default/web"]
	l.mu.Unlock()
	if changes == 0 {
		t.Fatal("no change reported for web")
	}
	// A second pod on the same port of the same pod namespace clashes.
	clash := l.run(t, "clash", "n0", corev1.RestartPolicyAlways,
		corev1.Container{Name: "a", Image: agnhostImage, Args: []string{"netexec", "--http-port=8080", "--udp-port=-1"}},
		corev1.Container{Name: "b", Image: agnhostImage, Args: []string{"netexec", "--http-port=8080", "--udp-port=-1"}})
	testutil.Eventually(t, 10*time.Second, "one container of clash in back-off", func() bool {
		for _, c := range l.state(t, clash).Containers {
			if w := c.State.Waiting; w != nil && w.Reason == "CrashLoopBackOff" && c.LastTerminationState.Terminated != nil &&
				c.LastTerminationState.Terminated.ExitCode == 1 && c.RestartCount == 1 {
				return true
			}
		}
		return false
	})
	// A failing liveness probe kills the container (137); the first
	// restart is at once.
	sick := l.run(t, "sick", "n1", "", corev1.Container{Name: "app", Image: agnhostImage, Args: []string{"netexec", "--http-port=8080"},
		LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/echo?code=500", Port: intstr.FromInt32(8080)}},
			PeriodSeconds: 1, FailureThreshold: 1}})
	testutil.Eventually(t, 10*time.Second, "sick restarted after its liveness probe failed", func() bool {
		c := l.state(t, sick).Containers[0]
		return c.RestartCount >= 1 && c.LastTerminationState.Terminated != nil && c.LastTerminationState.Terminated.ExitCode == 137
	})
	// A startup probe holds Started and Ready back until it succeeds; one
	// that fails kills the run.
	slow := l.run(t, "slow", "n1", "", corev1.Container{Name: "app", Image: agnhostImage, Args: []string{"netexec", "--http-port=8080"},
		StartupProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}, PeriodSeconds: 1}})
	testutil.Eventually(t, 10*time.Second, "slow started and ready", func() bool {
		c := l.state(t, slow).Containers[0]
		return *c.Started && c.Ready
	})
	never := l.run(t, "never", "n1", "", corev1.Container{Name: "app", Image: agnhostImage, Args: []string{"netexec", "--http-port=8080"},
		StartupProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(9)}}, PeriodSeconds: 1, FailureThreshold: 1}})
	testutil.Eventually(t, 20*time.Second, "never killed by its startup probe", func() bool {
		c := l.state(t, never).Containers[0]
		return c.RestartCount >= 1 && !c.Ready && c.LastTerminationState.Terminated != nil && c.LastTerminationState.Terminated.ExitCode == 137
	})
	var prev bytes.Buffer
	if err := l.r.Logs(context.Background(), sick.UID, "app", &corev1.PodLogOptions{Previous: true}, &prev); err != nil ||
		!strings.Contains(prev.String(), "Liveness probe failed") {
		t.Fatalf("previous log %q %v", prev.String(), err)
	}
	l.r.KillPod(web.UID)
	if _, err := l.get("http://" + web.Status.PodIP + ":8080/hostname"); err == nil {
		t.Fatal("a killed pod still answers")
	}
	if _, ok := l.r.PodState(web.UID); ok {
		t.Fatal("a killed pod still has a state")
	}
}

func TestHostProcessAndInitContainers(t *testing.T) {
	l := newLab(t)
	job := l.run(t, "job", "n1", corev1.RestartPolicyNever, corev1.Container{Name: "c", Image: "busybox",
		Command: []string{"sh", "-c", "echo hello $GREETING from $IP on $HOST_IP; exit 4"},
		Env: []corev1.EnvVar{{Name: "GREETING", Value: "hi"},
			{Name: "IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
			{Name: "HOST_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.hostIP"}}}}})
	testutil.Eventually(t, 10*time.Second, "the job failed", func() bool { return l.state(t, job).Phase == corev1.PodFailed })
	if term := l.state(t, job).Containers[0].State.Terminated; term == nil || term.ExitCode != 4 || term.Reason != "Error" {
		t.Fatalf("terminated state %+v", term)
	}
	var logs bytes.Buffer
	if err := l.r.Logs(context.Background(), job.UID, "c", &corev1.PodLogOptions{}, &logs); err != nil || logs.String() != "hello hi from "+job.Status.PodIP+" on 10.250.0.3\n" {
		t.Fatalf("logs %q %v", logs.String(), err)
	}
	if err := l.r.Logs(context.Background(), job.UID, "c", &corev1.PodLogOptions{Previous: true}, &logs); err == nil {
		t.Fatal("a container that never restarted has a previous log")
	}
	missing := l.run(t, "missing", "n1", corev1.RestartPolicyNever, corev1.Container{Name: "c", Image: "busybox", Command: []string{"no-such-program"}})
	testutil.Eventually(t, 10*time.Second, "start error", func() bool { return l.state(t, missing).Phase == corev1.PodFailed })
	if term := l.state(t, missing).Containers[0].State.Terminated; term.Reason != "StartError" || term.ExitCode != 128 ||
		term.Message != `exec: "no-such-program": executable file not found in $PATH` {
		t.Fatalf("start error state %+v", term)
	}

	// Init containers run first, in order; a failing one under Never
	// fails the pod and its containers never start.
	withInit := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "init", UID: "uid-init"},
		Spec: corev1.PodSpec{NodeName: "n0",
			InitContainers: []corev1.Container{{Name: "prep", Image: "busybox", Command: []string{"sh", "-c", "echo prep"}}},
			Containers:     []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
	if _, err := l.r.RunPod(withInit); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, "init done, container running", func() bool {
		s := l.state(t, withInit)
		return s.InitContainers[0].State.Terminated != nil && s.InitContainers[0].State.Terminated.Reason == "Completed" &&
			s.Containers[0].State.Running != nil && s.Ready()
	})
	failInit := withInit.DeepCopy()
	failInit.Name, failInit.UID, failInit.Spec.RestartPolicy = "failinit", "uid-failinit", corev1.RestartPolicyNever
	failInit.Spec.InitContainers[0].Command = []string{"sh", "-c", "exit 2"}
	if _, err := l.r.RunPod(failInit); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, "failed init fails the pod", func() bool { return l.state(t, failInit).Phase == corev1.PodFailed })
	if s := l.state(t, failInit); s.Containers[0].State.Waiting == nil || s.InitContainers[0].State.Terminated.ExitCode != 2 {
		t.Fatalf("failed init: %+v", s)
	}
}

func TestStreamsExecLogsPortForwardAndTheKubeletListener(t *testing.T) {
	l := newLab(t)
	srv := l.run(t, "srv", "n0", "", corev1.Container{Name: "app", Image: agnhostImage, Command: []string{"/agnhost", "serve-hostname", "--port=9376"},
		Env:            []corev1.EnvVar{{Name: "MINE", Value: "yes"}},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"/agnhost", "connect", "127.0.0.1:9376"}}}, PeriodSeconds: 1}})
	testutil.Eventually(t, 10*time.Second, "srv ready by its exec probe", func() bool { return l.state(t, srv).Ready() })
	var out, errOut bytes.Buffer
	code, err := l.r.Exec(context.Background(), srv.UID, "app", container.ExecOptions{Command: []string{"sh", "-c", "echo $MINE $HOSTNAME; cat; echo oops >&2; exit 3"},
		Stdin: strings.NewReader("in\n"), Stdout: &out, Stderr: &errOut})
	if err != nil || code != 3 || out.String() != "yes srv\nin\n" || errOut.String() != "oops\n" {
		t.Fatalf("exec: code %d err %v stdout %q stderr %q", code, err, out.String(), errOut.String())
	}
	errOut.Reset()
	if code, err := l.r.Exec(context.Background(), srv.UID, "app", container.ExecOptions{Command: []string{"no-such-program"}, Stderr: &errOut}); code != 127 || err != nil {
		t.Fatalf("exec of nothing: %d %v", code, err)
	}
	// The agnhost built-ins run in the pod, as Services tests exec them.
	for _, c := range []struct {
		argv []string
		code int
		err  string
	}{
		{[]string{"/agnhost", "connect", "--timeout=2s", srv.Status.PodIP + ":9376"}, 0, ""},
		{[]string{"/agnhost", "connect", "--timeout=2s", "127.0.0.1:1"}, 1, "REFUSED\n"},
		{[]string{"/agnhost", "connect", "nonsense"}, 1, "UNKNOWN: address nonsense: missing port in address\n"},
	} {
		errOut.Reset()
		code, err := l.r.Exec(context.Background(), srv.UID, "app", container.ExecOptions{Command: c.argv, Stderr: &errOut})
		if err != nil || code != c.code || errOut.String() != c.err {
			t.Errorf("exec %v: %d %v %q, want %d %q", c.argv, code, err, errOut.String(), c.code, c.err)
		}
	}
	if _, err := l.r.Exec(context.Background(), srv.UID, "nope", container.ExecOptions{Command: []string{"true"}}); err != container.ErrNotFound {
		t.Fatalf("exec in an unknown container: %v", err)
	}
	// Port-forward reaches the pod's loopback.
	a, b := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- l.r.PortForward(context.Background(), srv.UID, 9376, b) }()
	_, _ = a.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
	resp, _ := io.ReadAll(bufio.NewReader(a))
	if !bytes.HasSuffix(resp, []byte("\r\n\r\nsrv")) {
		t.Fatalf("port-forward answered %q", resp)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The kubelet port in a node's namespace, reached from the host.
	ln, err := l.r.ListenInNode("n0", "tcp", "10.250.0.2:10250")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			_, _ = c.Write([]byte("kubelet"))
			_ = c.Close()
		}
	}()
	c, err := dialIn(context.Background(), l.host, "tcp", "10.250.0.2:10250")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(c); string(b) != "kubelet" {
		t.Fatalf("node listener answered %q", b)
	}
}

func TestCloseLeavesNothingAndNewCleansACrash(t *testing.T) {
	l := newLab(t)
	l.run(t, "p", "n0", "", corev1.Container{Name: "c", Image: "registry.k8s.io/pause:3.10"})
	links := func() []string {
		var names []string
		_ = inNS(l.host, func() error {
			ls, err := netlink.LinkList()
			for _, x := range ls {
				names = append(names, x.Attrs().Name)
			}
			return err
		})
		return names
	}
	if got := links(); len(got) != 4 { // lo, bridge, two node veths
		t.Fatalf("host links %v", got)
	}
	// A second runtime on the same host finds the first's bridge (as after
	// a crash) and starts afresh.
	var again *Runtime
	if err := inNS(l.host, func() (err error) {
		again, err = New(Config{Bridge: "svcpt0"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := links(); len(got) != 2 {
		t.Fatalf("after New on a crashed runtime's host: links %v", got)
	}
	_ = again.Close()
	_ = l.r.Close()
	if got := links(); len(got) != 1 {
		t.Fatalf("after Close: links %v", got)
	}
	var routes []netlink.Route
	_ = inNS(l.host, func() (err error) { routes, err = netlink.RouteList(nil, netlink.FAMILY_V4); return err })
	if len(routes) != 0 {
		t.Fatalf("after Close: routes %v", routes)
	}
	runtime.GC()
}

func TestStopPodTermsThenKillsAtTheDeadline(t *testing.T) {
	l := newLab(t)
	polite := l.run(t, "polite", "n0", "", corev1.Container{Name: "c", Image: "busybox",
		Command: []string{"sh", "-c", `trap "echo bye; exit 3" TERM; echo up; while true; do sleep 0.1; done`}})
	stubborn := l.run(t, "stubborn", "n0", "", corev1.Container{Name: "c", Image: "busybox",
		Command: []string{"sh", "-c", `trap "" TERM; echo up; sleep 1000`}})
	up := func(p *corev1.Pod) bool {
		var b bytes.Buffer
		_ = l.r.Logs(context.Background(), p.UID, "c", nil, &b)
		return b.String() == "up\n"
	}
	testutil.Eventually(t, 10*time.Second, "both up", func() bool { return up(polite) && up(stubborn) })
	asked := time.Now()
	if l.r.StopPod(polite.UID, asked.Add(time.Minute)) || l.r.StopPod(stubborn.UID, asked.Add(time.Second)) {
		t.Fatal("a pod stopped at once")
	}
	testutil.Eventually(t, 10*time.Second, "polite ends at SIGTERM", func() bool { return l.r.StopPod(polite.UID, time.Time{}) })
	if term := l.state(t, polite).Containers[0].State.Terminated; term == nil || term.ExitCode != 3 {
		t.Fatalf("polite: %+v", term)
	}
	var b bytes.Buffer
	_ = l.r.Logs(context.Background(), polite.UID, "c", nil, &b)
	if b.String() != "up\nbye\n" {
		t.Fatalf("polite's log %q", b.String())
	}
	testutil.Eventually(t, 10*time.Second, "stubborn killed at its deadline", func() bool { return l.r.StopPod(stubborn.UID, time.Time{}) })
	if waited := time.Since(asked); waited < time.Second {
		t.Fatalf("a process that ignores SIGTERM was killed after %s, before its deadline", waited)
	}
	if term := l.state(t, stubborn).Containers[0].State.Terminated; term == nil || term.ExitCode != 137 {
		t.Fatalf("stubborn: %+v", term)
	}
	if _, ok := l.r.PodState(stubborn.UID); !ok {
		t.Fatal("a stopped pod is gone before KillPod")
	}
}

// TestLogsOfAnEndedPodUntilForgotten: a pod that ran to completion and
// was stopped (the agent kills a terminal pod) keeps its containers' logs,
// as the kubelet serves them until the pod is deleted; exec into it fails;
// Forget (the deletion) drops them.
func TestLogsOfAnEndedPodUntilForgotten(t *testing.T) {
	l := newLab(t)
	p := l.run(t, "once", "n0", corev1.RestartPolicyNever, corev1.Container{Name: "c", Image: "busybox", Command: []string{"sh", "-c", "echo done"}})
	testutil.Eventually(t, 10*time.Second, "the pod to succeed", func() bool {
		s, ok := l.r.PodState(p.UID)
		return ok && s.Phase == corev1.PodSucceeded
	})
	l.r.KillPod(p.UID)
	var out bytes.Buffer
	if err := l.r.Logs(context.Background(), p.UID, "c", &corev1.PodLogOptions{}, &out); err != nil || out.String() != "done\n" {
		t.Fatalf("logs of the ended pod: %q %v", out.String(), err)
	}
	if _, err := l.r.Exec(context.Background(), p.UID, "c", container.ExecOptions{Command: []string{"true"}}); !errors.Is(err, container.ErrNotFound) {
		t.Fatalf("exec into an ended pod: %v, want container not found", err)
	}
	l.r.Forget(p.UID)
	if err := l.r.Logs(context.Background(), p.UID, "c", &corev1.PodLogOptions{}, &out); !errors.Is(err, container.ErrNotFound) {
		t.Fatalf("logs after Forget: %v, want not found", err)
	}
}

// TestHostProcessesSeeThePodsResolvConf: a host-process container and an
// exec see the pod's resolv.conf (ClusterFirst: the cluster DNS and the
// namespace's search path), bound in a mount namespace of their own; the
// host's file is untouched.
func TestHostProcessesSeeThePodsResolvConf(t *testing.T) {
	l := newLab(t)
	hostBefore, _ := os.ReadFile("/etc/resolv.conf")
	p := l.run(t, "dns", "n0", corev1.RestartPolicyNever, corev1.Container{Name: "c", Image: "busybox", Command: []string{"sh", "-c", "cat /etc/resolv.conf; sleep 30"}})
	want := "search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n"
	testutil.Eventually(t, 10*time.Second, "the container's output", func() bool {
		var out bytes.Buffer
		return l.r.Logs(context.Background(), p.UID, "c", &corev1.PodLogOptions{}, &out) == nil && out.String() == want
	})
	var out bytes.Buffer
	if code, err := l.r.Exec(context.Background(), p.UID, "c", container.ExecOptions{Command: []string{"cat", "/etc/resolv.conf"}, Stdout: &out}); err != nil || code != 0 || out.String() != want {
		t.Fatalf("exec cat /etc/resolv.conf: %d %v %q", code, err, out.String())
	}
	if hostAfter, _ := os.ReadFile("/etc/resolv.conf"); !bytes.Equal(hostBefore, hostAfter) {
		t.Fatalf("the host's resolv.conf changed: %q", hostAfter)
	}
}

// TestShPassesEnvFromKeysThatAreNoShellNames: envFrom keys such as
// "data-1" reach the programs `sh -c` runs, as an image's shell passes
// them on (upstream's ConfigMap and Secret env conformance specs).
func TestShPassesEnvFromKeysThatAreNoShellNames(t *testing.T) {
	l := newLab(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cm"}, Data: map[string]string{"data-1": "value-1"}}
	if _, err := l.r.cfg.Client.CoreV1().ConfigMaps("default").Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p := l.run(t, "env", "n0", corev1.RestartPolicyNever, corev1.Container{Name: "c", Image: "busybox", Command: []string{"sh", "-c", "env"},
		EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}},
			{Prefix: "p-", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}}})
	var out bytes.Buffer
	testutil.Eventually(t, 10*time.Second, "the pod to end", func() bool {
		s, ok := l.r.PodState(p.UID)
		return ok && s.Phase == corev1.PodSucceeded
	})
	if err := l.r.Logs(context.Background(), p.UID, "c", &corev1.PodLogOptions{}, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if !slices.Contains(lines, "data-1=value-1") || !slices.Contains(lines, "p-data-1=value-1") {
		t.Fatalf("env printed:\n%s", out.String())
	}
}
