package integration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/kubeletclient"
	"github.com/svcplane/svcplane/internal/node/container"
	"github.com/svcplane/svcplane/internal/node/kubelet"
	"github.com/svcplane/svcplane/internal/node/kubelet/kubelettest"
	"github.com/svcplane/svcplane/internal/node/runtime/sim"
	"github.com/svcplane/svcplane/internal/plane"
	"github.com/svcplane/svcplane/internal/testutil"
	"github.com/svcplane/svcplane/test/integration/framework"
)

// kubeletLab is a kubelet API for two nodes of the shared server: pods on
// <ns>-host run on kubelettest.HostStreams (host processes, an echo
// server behind port 8080), pods on <ns>-sim on the simulated
// runtime. The Nodes are created by hand (annotated with the kubelet
// API's address and port) and tainted, so no other test's pod lands there.
type kubeletLab struct {
	ns                string
	hostNode, simNode string
	streams           *kubelettest.HostStreams
	sim               *sim.Runtime
}

func newKubeletLab(t *testing.T) *kubeletLab {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := server.Client
	l := &kubeletLab{ns: newNamespace(t, c), streams: kubelettest.NewHostStreams(), sim: sim.New(clock.RealClock{})}
	l.hostNode, l.simNode = l.ns+"-host", l.ns+"-sim"
	hostNode, simNode := l.hostNode, l.simNode
	noErr(t, l.sim.SetNode(simNode, []string{"10.99.0.0/24"}, nil))
	caPEM, err := os.ReadFile(server.CA().CertFile)
	noErr(t, err)
	authn, authz, err := kubelet.DelegatingAuth(c, caPEM)
	noErr(t, err)
	srv, err := kubelet.New(kubelet.Config{Nodes: []string{hostNode, simNode}, Authenticator: authn, Authorizer: authz,
		Lookup: func(ns, name string) (kubelet.Target, bool) {
			p, err := c.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				return kubelet.Target{}, false
			}
			var s container.Streams = l.streams
			if p.Spec.NodeName == simNode {
				s = l.sim
			}
			return kubelet.Target{Pod: p, UID: p.UID, Node: p.Spec.NodeName, Streams: s}, true
		},
		Pods: func(string) []*corev1.Pod { return nil }})
	noErr(t, err)
	noErr(t, srv.Start(ctx))
	for _, name := range []string{hostNode, simNode} {
		ep, _ := srv.Endpoint(name)
		n := get(c.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
			Annotations: map[string]string{kubeletclient.AddressAnnotation: ep.Host}},
			Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "kubelet-it", Effect: corev1.TaintEffectNoSchedule}}}},
			metav1.CreateOptions{}))(t)
		t.Cleanup(func() { _ = c.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{}) })
		updateRetrying(t, func() (*corev1.Node, error) { return c.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{}) },
			func(n *corev1.Node) { n.Status.DaemonEndpoints.KubeletEndpoint.Port = ep.Port },
			func(n *corev1.Node) (*corev1.Node, error) {
				return c.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
			})
	}
	return l
}

// declareWebSockets sets whether the lab's nodes declare
// ExtendWebSocketsToKubelet: the API server then proxies kubectl's
// WebSocket requests to the kubelet API as they are, else it translates
// them to SPDY.
func (l *kubeletLab) declareWebSockets(t *testing.T, on bool) {
	t.Helper()
	ctx, c := context.Background(), server.Client
	for _, name := range []string{l.hostNode, l.simNode} {
		updateRetrying(t, func() (*corev1.Node, error) { return c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{}) },
			func(n *corev1.Node) {
				n.Status.DeclaredFeatures = nil
				if on {
					n.Status.DeclaredFeatures = []string{kubeletclient.ExtendWebSocketsToKubelet}
				}
			},
			func(n *corev1.Node) (*corev1.Node, error) {
				return c.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
			})
	}
}

// modes are the two ways the API server passes kubectl's WebSockets on.
var modes = []struct {
	name       string
	webSockets bool
}{{"translated", false}, {"kubelet-websockets", true}}

// pod creates a pod bound to node and makes it known to its runtime.
func (l *kubeletLab) pod(t *testing.T, name, node string) *corev1.Pod {
	t.Helper()
	p := get(server.Client.CoreV1().Pods(l.ns).Create(context.Background(), &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "app", Image: "agnhost"}},
			Tolerations: []corev1.Toleration{{Key: "kubelet-it", Operator: corev1.TolerationOpExists}}},
	}, metav1.CreateOptions{}))(t)
	if node == l.simNode {
		_, err := l.sim.RunPod(p)
		noErr(t, err)
	}
	// Running, as its node would report it (kubectl port-forward checks).
	return updateRetrying(t, func() (*corev1.Pod, error) {
		return server.Client.CoreV1().Pods(l.ns).Get(context.Background(), name, metav1.GetOptions{})
	}, func(p *corev1.Pod) { p.Status.Phase = corev1.PodRunning },
		func(p *corev1.Pod) (*corev1.Pod, error) {
			return server.Client.CoreV1().Pods(l.ns).UpdateStatus(context.Background(), p, metav1.UpdateOptions{})
		})
}

func kubectlBinary(t *testing.T, name string) string {
	t.Helper()
	k, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("no kubectl on PATH")
	}
	if name == "kubectl" {
		return k
	}
	k, _ = filepath.EvalSymlinks(k)
	p := filepath.Join(filepath.Dir(k), name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no %s beside kubectl", name)
	}
	return p
}

// kubectl runs a kubectl binary with kubeconfig and env; it returns
// stdout, stderr and the exit code.
func kubectl(t *testing.T, bin, kubeconfig string, env []string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("kubectl %v: %v", args, err)
	}
	return stdout.String(), stderr.String(), code
}

// TestKubectlExecLogs drives kubectl logs and exec through the API server
// to a kubelet API: over WebSocket (kubectl ≥ 1.31's default, translated
// to SPDY by the API server) and SPDY (KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false,
// kubectl 1.29), with stdin, stdout, stderr and exit codes.
func TestKubectlExecLogs(t *testing.T) {
	skipShort(t)
	l := newKubeletLab(t)
	p := l.pod(t, "web", l.hostNode)
	l.streams.AddPod(p.UID, map[string][]kubelettest.LogLine{"app": {
		{Time: time.Unix(100, 0), Text: "line 1"}, {Time: time.Unix(101, 0), Text: "line 2"}}}, nil)
	kc := server.Kubeconfig

	out, errOut, code := kubectl(t, kubectlBinary(t, "kubectl"), kc, nil, "", "-n", l.ns, "logs", "web", "--tail=1")
	if code != 0 || out != "line 2\n" {
		t.Errorf("kubectl logs --tail=1 = %q %q %d", out, errOut, code)
	}
	_, errOut, code = kubectl(t, kubectlBinary(t, "kubectl"), kc, nil, "", "-n", l.ns, "logs", "web", "-c", "nope")
	if code == 0 || !strings.Contains(errOut, "container nope is not valid for pod web") {
		t.Errorf("kubectl logs -c nope: %q %d", errOut, code)
	}
	for _, mode := range modes {
		l.declareWebSockets(t, mode.webSockets)
		for _, tc := range []struct {
			name, bin string
			env       []string
		}{
			{"websocket", "kubectl", nil},
			{"spdy", "kubectl", []string{"KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false"}},
			{"kubectl-1.29", "kubectl.1.29", nil},
		} {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				bin := kubectlBinary(t, tc.bin)
				// -v=4 shows a fallback from WebSocket to SPDY, which
				// would hide a broken WebSocket path.
				out, errOut, code := kubectl(t, bin, kc, tc.env, "", "-v=4", "-n", l.ns, "exec", "web", "--", "echo", "hi")
				if code != 0 || out != "hi\n" || strings.Contains(strings.ToLower(errOut), "fallback") {
					t.Errorf("exec echo hi = %q %q %d", out, errOut, code)
				}
				out, errOut, code = kubectl(t, bin, kc, tc.env, "from stdin\n", "-n", l.ns, "exec", "-i", "web", "--",
					"sh", "-c", "cat; echo to-stderr >&2; exit 3")
				if code != 3 || out != "from stdin\n" || !strings.Contains(errOut, "to-stderr") {
					t.Errorf("exec -i sh = stdout %q stderr %q exit %d; want the input back, to-stderr, 3", out, errOut, code)
				}
			})
		}
	}
}

// TestKubectlExecSimulatedRuntime: exec into a pod of the simulated
// runtime fails with the runtime's reason.
func TestKubectlExecSimulatedRuntime(t *testing.T) {
	skipShort(t)
	l := newKubeletLab(t)
	l.pod(t, "idle", l.simNode)
	for _, mode := range modes {
		l.declareWebSockets(t, mode.webSockets)
		for _, env := range [][]string{nil, {"KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false"}} {
			out, errOut, code := kubectl(t, kubectlBinary(t, "kubectl"), server.Kubeconfig, env, "", "-n", l.ns, "exec", "idle", "--", "echo", "hi")
			if code == 0 || !strings.Contains(errOut, container.ErrNotSupported.Error()) {
				t.Errorf("%s %v: exec on the simulated runtime = %q %q %d; want %q", mode.name, env, out, errOut, code, container.ErrNotSupported)
			}
			// A kubelet that serves WebSockets refuses before the
			// upgrade: kubectl falls back to SPDY and shows the 400.
			if mode.webSockets && !strings.Contains(errOut, "Error from server (BadRequest)") {
				t.Errorf("%s %v: %q, want a BadRequest", mode.name, env, errOut)
			}
		}
	}
	out, errOut, code := kubectl(t, kubectlBinary(t, "kubectl"), server.Kubeconfig, nil, "", "-n", l.ns, "logs", "idle")
	if code != 0 || out != "" {
		t.Errorf("logs of a simulated pod = %q %q %d; want empty", out, errOut, code)
	}
}

// TestKubectlPortForward forwards a local port to the pod's port 8080 (an
// echo server on the host) over WebSocket (kubectl ≥ 1.31) and SPDY.
func TestKubectlPortForward(t *testing.T) {
	skipShort(t)
	l := newKubeletLab(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	echo, err := kubelettest.EchoServer(ctx, "echo:")
	noErr(t, err)
	p := l.pod(t, "web", l.hostNode)
	l.streams.AddPod(p.UID, nil, map[int32]string{8080: echo})
	for _, mode := range modes {
		l.declareWebSockets(t, mode.webSockets)
		for _, tc := range []struct {
			name string
			env  []string
		}{{"websocket", nil}, {"spdy", []string{"KUBECTL_PORT_FORWARD_WEBSOCKETS=false"}}} {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				pctx, stop := context.WithTimeout(ctx, 30*time.Second)
				defer stop()
				cmd := exec.CommandContext(pctx, kubectlBinary(t, "kubectl"), "--kubeconfig", server.Kubeconfig, "-n", l.ns,
					"-v=4", "port-forward", "--address", "127.0.0.1", "pod/web", ":8080")
				cmd.Env = append(os.Environ(), tc.env...)
				stdout, err := cmd.StdoutPipe()
				noErr(t, err)
				var stderr strings.Builder
				cmd.Stderr = &stderr
				noErr(t, cmd.Start())
				defer func() { stop(); _ = cmd.Wait() }()
				line, err := bufio.NewReader(stdout).ReadString('\n')
				m := regexp.MustCompile(`Forwarding from 127\.0\.0\.1:(\d+) -> 8080`).FindStringSubmatch(line)
				if err != nil || m == nil {
					t.Fatalf("port-forward said %q (%v), stderr %q", line, err, stderr.String())
				}
				conn, err := net.Dial("tcp", "127.0.0.1:"+m[1])
				noErr(t, err)
				defer conn.Close()
				_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
				_, err = io.WriteString(conn, "ping\n")
				noErr(t, err)
				got, err := bufio.NewReader(conn).ReadString('\n')
				if err != nil || got != "echo:ping\n" {
					t.Errorf("through the forward: %q, %v; want echo:ping (stderr %q)", got, err, stderr.String())
				}
				if strings.Contains(strings.ToLower(stderr.String()), "fallback") {
					t.Errorf("kubectl fell back to SPDY: %s", stderr.String())
				}
			})
		}
	}
}

// TestExecForbidden: a user who may read pods but not create pods/exec
// gets 403 over SPDY (POST, create) and WebSocket (GET, then the create
// check of AuthorizePodWebsocketUpgradeCreatePermission), even with get
// on pods/exec.
func TestExecForbidden(t *testing.T) {
	skipShort(t)
	l := newKubeletLab(t)
	p := l.pod(t, "web", l.hostNode)
	l.streams.AddPod(p.UID, nil, nil)
	ctx := context.Background()
	c := server.Client
	get(c.RbacV1().Roles(l.ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "pods-get-exec"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods", "pods/exec"}, Verbs: []string{"get", "list"}}}},
		metav1.CreateOptions{}))(t)
	get(c.RbacV1().RoleBindings(l.ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "pods-get-exec"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "pods-get-exec"},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "exec-less"}}}, metav1.CreateOptions{}))(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	noErr(t, plane.WriteKubeconfig(server.Options.DataDir, kc, "exec-less", nil, ""))
	eventually(t, "the Role to apply", func() bool {
		_, _, code := kubectl(t, kubectlBinary(t, "kubectl"), kc, nil, "", "-n", l.ns, "get", "pod", "web")
		return code == 0
	})
	for _, env := range [][]string{nil, {"KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false"}} {
		_, errOut, code := kubectl(t, kubectlBinary(t, "kubectl"), kc, env, "", "-n", l.ns, "exec", "web", "--", "echo", "hi")
		want := fmt.Sprintf(`pods "web" is forbidden: User "exec-less" cannot create resource "pods/exec" in API group "" in the namespace "%s"`, l.ns)
		if code == 0 || !strings.Contains(errOut, want) {
			t.Errorf("%v: exec = %q %d; want %q", env, errOut, code, want)
		}
	}
}

// TestLocalNodeKubeletAPI runs a server with one local node, as `up`: the
// node's kubelet API has a serving certificate of the cluster CA, which
// the API server checks (given --kubelet-certificate-authority), and the API
// server reaches it as kube-apiserver-kubelet-client through kubeadm's
// binding; a simulated pod's log is empty.
func TestLocalNodeKubeletAPI(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	s, err := framework.StartWith(dir, func(o *framework.Options) {
		o.Nodes = 1
		o.Kubelet.CAFile = filepath.Join(o.PKIDir(), "ca.crt")
	})
	noErr(t, err)
	defer func() { noErr(t, s.Stop()) }()
	ctx, c := context.Background(), s.Client
	ns := newNamespace(t, c)
	get(c.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}}}, metav1.CreateOptions{}))(t)
	testutil.EventuallyErr(t, 60*time.Second, "pod web Running", func() error {
		p, err := c.CoreV1().Pods(ns).Get(ctx, "web", metav1.GetOptions{})
		if err == nil && p.Status.Phase != corev1.PodRunning {
			err = fmt.Errorf("phase %s", p.Status.Phase)
		}
		return err
	})
	// The binding is applied once the server serves; the kubelet API
	// caches a denial 30 s, so the first try may come too early.
	testutil.EventuallyErr(t, 60*time.Second, "the log of web", func() error {
		out, err := c.CoreV1().Pods(ns).GetLogs("web", &corev1.PodLogOptions{}).DoRaw(ctx)
		if err == nil && len(out) != 0 {
			err = fmt.Errorf("log %q, want empty", out)
		}
		return err
	})
	err = c.CoreV1().Pods(ns).GetLogs("web", &corev1.PodLogOptions{Container: "nope"}).Do(ctx).Error()
	if err == nil || !strings.Contains(err.Error(), "container nope is not valid for pod web") {
		t.Errorf("log of a missing container: %v", err)
	}
}
