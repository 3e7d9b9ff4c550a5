package kubelet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/transport/spdy"
	"k8s.io/utils/clock"
	"k8s.io/utils/exec"

	"github.com/svcplane/svcplane/internal/node/container"
	"github.com/svcplane/svcplane/internal/node/kubelet/kubelettest"
	"github.com/svcplane/svcplane/internal/node/runtime/sim"
	"github.com/svcplane/svcplane/internal/pki"
)

// lab is a kubelet API of two nodes: pod web (containers app, side) on
// node a with HostStreams, pod idle on node b on the simulated runtime.
type lab struct {
	srv     *Server
	ca      *pki.CA
	streams *kubelettest.HostStreams
	mu      sync.Mutex
	sars    []authorizationv1.SubjectAccessReviewSpec
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newLab(t *testing.T) *lab {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ca, err := pki.LoadOrCreateCA(t.TempDir(), "test-ca")
	if err != nil {
		t.Fatal(err)
	}
	l := &lab{ca: ca, streams: kubelettest.NewHostStreams()}
	echo, err := kubelettest.EchoServer(ctx, "echo:")
	if err != nil {
		t.Fatal(err)
	}
	l.streams.AddPod("uid-web", map[string][]kubelettest.LogLine{"app": {
		{Time: t0, Text: "one"}, {Time: t0.Add(time.Second), Text: "two"}, {Time: t0.Add(2 * time.Second), Text: "three"}}},
		map[int32]string{8080: echo})
	simRT := sim.New(clock.RealClock{})
	web := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "uid-web"},
		Spec: corev1.PodSpec{NodeName: "a", Containers: []corev1.Container{{Name: "app"}, {Name: "side"}}}}
	idle := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "idle", UID: "uid-idle"},
		Spec: corev1.PodSpec{NodeName: "b", Containers: []corev1.Container{{Name: "c"}}}}
	if err := simRT.SetNode("b", []string{"10.0.0.0/24"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := simRT.RunPod(idle); err != nil {
		t.Fatal(err)
	}
	client := l.fakeAuthorizationAPI(t)
	caPEM, err := os.ReadFile(ca.CertFile)
	if err != nil {
		t.Fatal(err)
	}
	authn, authz, err := DelegatingAuth(client, caPEM)
	if err != nil {
		t.Fatal(err)
	}
	pods := map[string]*corev1.Pod{"ns/web": web, "ns/idle": idle}
	l.srv, err = New(Config{Nodes: []string{"a", "b"}, Authenticator: authn, Authorizer: authz,
		Lookup: func(ns, name string) (Target, bool) {
			p, ok := pods[ns+"/"+name]
			if !ok {
				return Target{}, false
			}
			var s container.Streams = l.streams
			if p.Spec.NodeName == "b" {
				s = simRT
			}
			return Target{Pod: p, UID: p.UID, Node: p.Spec.NodeName, Streams: s}, true
		},
		Pods: func(node string) []*corev1.Pod {
			if node == "a" {
				return []*corev1.Pod{web}
			}
			return []*corev1.Pod{idle}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return l
}

// fakeAuthorizationAPI is an API server that answers
// SubjectAccessReviews only: admin may do anything, pods-reader only
// nodes/pods. It records every review.
func (l *lab) fakeAuthorizationAPI(t *testing.T) kubernetes.Interface {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/apis/authorization.k8s.io/v1/subjectaccessreviews" || r.Method != "POST" {
			http.NotFound(w, r)
			return
		}
		var sar authorizationv1.SubjectAccessReview
		if err := json.NewDecoder(r.Body).Decode(&sar); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		l.mu.Lock()
		l.sars = append(l.sars, sar.Spec)
		l.mu.Unlock()
		ra := sar.Spec.ResourceAttributes
		sar.Status.Allowed = sar.Spec.User == "admin" || sar.Spec.User == "pods-reader" && ra != nil && ra.Subresource == "pods"
		sar.APIVersion, sar.Kind = "authorization.k8s.io/v1", "SubjectAccessReview"
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&sar)
	}))
	t.Cleanup(srv.Close)
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// config is a client of node's endpoint as user (no certificate for "").
func (l *lab) config(t *testing.T, node, user string) *rest.Config {
	t.Helper()
	ep, ok := l.srv.Endpoint(node)
	if !ok || ep.Host != "127.0.0.1" || ep.Port == 0 {
		t.Fatalf("endpoint of %s = %+v, %v", node, ep, ok)
	}
	cfg := &rest.Config{Host: "https://" + net.JoinHostPort(ep.Host, fmt.Sprint(ep.Port)), TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	if user != "" {
		cert, key, err := l.ca.ClientPEM(user, nil, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		cfg.CertData, cfg.KeyData = cert, key
	}
	return cfg
}

func (l *lab) get(t *testing.T, node, user, method, path string) (int, string) {
	t.Helper()
	tr, err := rest.TransportFor(l.config(t, node, user))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(method, l.config(t, node, user).Host+path, nil)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestAuthenticationAndAuthorization(t *testing.T) {
	l := newLab(t)
	for _, tc := range []struct {
		user, method, path string
		code               int
		body               string
	}{
		{"", "GET", "/healthz", 401, "Unauthorized\n"},
		{"nobody", "GET", "/pods", 403, "Forbidden (user=nobody, verb=get, resource=nodes, subresource(s)=[pods proxy])\n"},
		{"nobody", "POST", "/exec/ns/web/app?command=true&output=1", 403, "Forbidden (user=nobody, verb=create, resource=nodes, subresource(s)=[proxy])\n"},
		{"nobody", "GET", "/containerLogs/ns/web/app", 403, "Forbidden (user=nobody, verb=get, resource=nodes, subresource(s)=[proxy])\n"},
		{"pods-reader", "GET", "/healthz", 403, "Forbidden (user=pods-reader, verb=get, resource=nodes, subresource(s)=[healthz proxy])\n"},
		{"pods-reader", "GET", "/pods", 200, ""},
		{"admin", "GET", "/healthz", 200, "ok"},
		{"admin", "GET", "/nothing", 404, "404 page not found\n"},
	} {
		code, body := l.get(t, "a", tc.user, tc.method, tc.path)
		if code != tc.code || tc.body != "" && body != tc.body {
			t.Errorf("%s %s %s = %d %q, want %d %q", tc.user, tc.method, tc.path, code, body, tc.code, tc.body)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	want := authorizationv1.ResourceAttributes{Verb: "get", Version: "v1", Resource: "nodes", Subresource: "pods", Name: "a"}
	found := false
	for _, s := range l.sars {
		if s.User == "pods-reader" && s.ResourceAttributes != nil && *s.ResourceAttributes == want {
			found = true
		}
	}
	if !found {
		t.Errorf("no SubjectAccessReview for %+v among %+v", want, l.sars)
	}
}

func TestPods(t *testing.T) {
	l := newLab(t)
	code, body := l.get(t, "b", "admin", "GET", "/pods")
	var list corev1.PodList
	if err := json.Unmarshal([]byte(body), &list); code != 200 || err != nil {
		t.Fatalf("/pods = %d %q (%v)", code, body, err)
	}
	if list.Kind != "PodList" || len(list.Items) != 1 || list.Items[0].Name != "idle" {
		t.Errorf("/pods of b = %+v", list)
	}
}

func TestContainerLogs(t *testing.T) {
	l := newLab(t)
	for _, tc := range []struct {
		node, path string
		code       int
		body       string
	}{
		{"a", "/containerLogs/ns/web/app", 200, "one\ntwo\nthree\n"},
		{"a", "/containerLogs/ns/web/app?tailLines=1", 200, "three\n"},
		{"a", "/containerLogs/ns/web/app?tail=2", 200, "two\nthree\n"},
		{"a", "/containerLogs/ns/web/app?tail=all", 200, "one\ntwo\nthree\n"},
		{"a", "/containerLogs/ns/web/app?limitBytes=5", 200, "one\nt"},
		{"a", "/containerLogs/ns/web/app?sinceTime=2026-01-02T03:04:06Z&timestamps=true", 200,
			"2026-01-02T03:04:06Z two\n2026-01-02T03:04:07Z three\n"},
		{"a", "/containerLogs/ns/web/app?tailLines=-1", 422, `{"message": "Invalid request."}` + "\n"},
		{"a", "/containerLogs/ns/web/app?sinceSeconds=1&sinceTime=2026-01-02T03:04:06Z", 422, `{"message": "Invalid request."}` + "\n"},
		{"a", "/containerLogs/ns/web/app?stream=Stdout", 422, `{"message": "Invalid request."}` + "\n"},
		{"a", "/containerLogs/ns/web/app?tailLines=x", 400, `{"message": "Unable to decode query."}` + "\n"},
		{"a", "/containerLogs/ns/gone/app", 404, "pod \"gone\" does not exist\n"},
		{"a", "/containerLogs/ns/web/nope", 404, "container \"nope\" not found in pod \"web\"\n"},
		{"a", "/containerLogs/ns/web/side", 404, "container not found\n"},
		// idle runs on node b: node a's kubelet does not know it.
		{"a", "/containerLogs/ns/idle/c", 404, "pod \"idle\" does not exist\n"},
		{"b", "/containerLogs/ns/idle/c", 200, ""},
	} {
		code, body := l.get(t, tc.node, "admin", "GET", tc.path)
		if code != tc.code || body != tc.body {
			t.Errorf("%s %s = %d %q, want %d %q", tc.node, tc.path, code, body, tc.code, tc.body)
		}
	}
}

func execURL(cfg *rest.Config, path string, q url.Values) *url.URL {
	u, _ := url.Parse(cfg.Host + path)
	u.RawQuery = q.Encode()
	return u
}

// TestExecSPDY runs a host command through the SPDY protocol kube-apiserver
// speaks to kubelets: stdin, stdout, stderr and the exit code get through.
func TestExecSPDY(t *testing.T) {
	l := newLab(t)
	cfg := l.config(t, "a", "admin")
	q := url.Values{"command": {"sh", "-c", "cat; echo oops >&2; exit 3"}, "input": {"1"}, "output": {"1"}, "error": {"1"}}
	ex, err := remotecommand.NewSPDYExecutor(cfg, "POST", execURL(cfg, "/exec/ns/web/app", q))
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err = ex.StreamWithContext(context.Background(), remotecommand.StreamOptions{Stdin: strings.NewReader("hello\n"), Stdout: &stdout, Stderr: &stderr})
	var exitErr exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitStatus() != 3 {
		t.Errorf("exec error = %v, want exit code 3", err)
	}
	if stdout.String() != "hello\n" || stderr.String() != "oops\n" {
		t.Errorf("stdout %q stderr %q", stdout.String(), stderr.String())
	}

	q = url.Values{"command": {"true"}, "output": {"1"}}
	ex, _ = remotecommand.NewSPDYExecutor(cfg, "POST", execURL(cfg, "/exec/ns/web/uid-web/app", q))
	if err := ex.StreamWithContext(context.Background(), remotecommand.StreamOptions{Stdout: io.Discard}); err != nil {
		t.Errorf("exec true (path with the pod's UID): %v", err)
	}
	q = url.Values{"command": {"no-such-command-svcplane"}, "output": {"1"}, "error": {"1"}}
	ex, _ = remotecommand.NewSPDYExecutor(cfg, "POST", execURL(cfg, "/exec/ns/web/app", q))
	stderr.Reset()
	err = ex.StreamWithContext(context.Background(), remotecommand.StreamOptions{Stdout: io.Discard, Stderr: &stderr})
	if !errors.As(err, &exitErr) || exitErr.ExitStatus() != 127 {
		t.Errorf("exec of a missing command = %v, want exit code 127", err)
	}
}

// TestExecRefused: the simulated runtime's pods, a wrong UID and attach
// are refused before the upgrade, with a message the client shows.
func TestExecRefused(t *testing.T) {
	l := newLab(t)
	for _, tc := range []struct {
		node, path, want string
	}{
		{"b", "/exec/ns/idle/c", "pod ns/idle: " + container.ErrNotSupported.Error()},
		{"a", "/exec/ns/web/other-uid/app", "pod does not exist"},
		{"a", "/attach/ns/web/app", "attach is not supported by svcplane's pod runtimes"},
		{"a", "/exec/ns/web/app?nocommand", "you must specify at least one command for the container"},
	} {
		cfg := l.config(t, tc.node, "admin")
		q := url.Values{"command": {"true"}, "output": {"1"}}
		if strings.HasSuffix(tc.path, "?nocommand") {
			tc.path, q = strings.TrimSuffix(tc.path, "?nocommand"), url.Values{"output": {"1"}}
		}
		ex, err := remotecommand.NewSPDYExecutor(cfg, "POST", execURL(cfg, tc.path, q))
		if err != nil {
			t.Fatal(err)
		}
		err = ex.StreamWithContext(context.Background(), remotecommand.StreamOptions{Stdout: io.Discard})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
		}
	}
}

// TestPortForwardSPDY forwards a local port to the pod's port 8080 (an
// echo server) with client-go's port-forwarder, as kubectl does.
func TestPortForwardSPDY(t *testing.T) {
	l := newLab(t)
	cfg := l.config(t, "a", "admin")
	tr, up, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(cfg.Host + "/portForward/ns/web")
	stop, ready := make(chan struct{}), make(chan struct{})
	defer close(stop)
	fw, err := portforward.NewOnAddresses(spdy.NewDialer(up, &http.Client{Transport: tr}, "POST", u), []string{"127.0.0.1"}, []string{"0:8080"}, stop, ready, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- fw.ForwardPorts() }()
	select {
	case <-ready:
	case err := <-errc:
		t.Fatalf("ForwardPorts: %v", err)
	}
	ports, err := fw.GetPorts()
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", ports[0].Local))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "ping\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len("echo:ping\n"))
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "echo:ping\n" {
		t.Errorf("read %q, %v; want echo:ping", buf, err)
	}
}

func TestPortForwardRefusedOnSimulatedRuntime(t *testing.T) {
	l := newLab(t)
	cfg := l.config(t, "b", "admin")
	tr, up, _ := spdy.RoundTripperFor(cfg)
	u, _ := url.Parse(cfg.Host + "/portForward/ns/idle")
	_, _, err := spdy.NewDialer(up, &http.Client{Transport: tr}, "POST", u).Dial("portforward.k8s.io")
	if err == nil || !strings.Contains(err.Error(), container.ErrNotSupported.Error()) {
		t.Errorf("dial = %v, want %q", err, container.ErrNotSupported)
	}
}

func TestConfigValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"no auth", func(c *Config) { c.Authenticator = nil }, "no authenticator"},
		{"no lookup", func(c *Config) { c.Lookup = nil }, "no pod lookup"},
		{"shared port", func(c *Config) { c.Nodes = []string{"a", "b"}; c.Port = 10250 }, "cannot share port 10250"},
		{"bad bind", func(c *Config) { c.BindAddress = "localhost" }, `bind address "localhost"`},
	} {
		c := Config{Nodes: []string{"a"}, Lookup: func(string, string) (Target, bool) { return Target{}, false },
			Pods:          func(string) []*corev1.Pod { return nil },
			Authenticator: authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) { return nil, false, nil }),
			Authorizer: authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
				return authorizer.DecisionNoOpinion, "", nil
			})}
		tc.mod(&c)
		if _, err := New(c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestExecWebSocket runs kubectl's WebSocket v5 protocol against the
// kubelet API itself (an API server proxies it as is to nodes declaring
// ExtendWebSocketsToKubelet): stdin, stdout, stderr and the exit code.
func TestExecWebSocket(t *testing.T) {
	l := newLab(t)
	cfg := l.config(t, "a", "admin")
	q := url.Values{"command": {"sh", "-c", "cat; echo oops >&2; exit 4"}, "input": {"1"}, "output": {"1"}, "error": {"1"}}
	ex, err := remotecommand.NewWebSocketExecutor(cfg, "GET", execURL(cfg, "/exec/ns/web/app", q).String())
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err = ex.StreamWithContext(context.Background(), remotecommand.StreamOptions{Stdin: strings.NewReader("over ws\n"), Stdout: &stdout, Stderr: &stderr})
	var exitErr exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitStatus() != 4 {
		t.Errorf("exec error = %v, want exit code 4", err)
	}
	if stdout.String() != "over ws\n" || stderr.String() != "oops\n" {
		t.Errorf("stdout %q stderr %q", stdout.String(), stderr.String())
	}
	// The simulated runtime refuses before the upgrade.
	cfg = l.config(t, "b", "admin")
	ex, _ = remotecommand.NewWebSocketExecutor(cfg, "GET", execURL(cfg, "/exec/ns/idle/c", url.Values{"command": {"true"}, "output": {"1"}}).String())
	err = ex.StreamWithContext(context.Background(), remotecommand.StreamOptions{Stdout: io.Discard})
	if err == nil || !strings.Contains(err.Error(), container.ErrNotSupported.Error()) {
		t.Errorf("WebSocket exec on the simulated runtime: %v", err)
	}
}

// TestPortForwardWebSocketTunnel forwards through kubectl's
// WebSocket-tunnelled SPDY, straight to the kubelet API.
func TestPortForwardWebSocketTunnel(t *testing.T) {
	l := newLab(t)
	cfg := l.config(t, "a", "admin")
	u, _ := url.Parse(cfg.Host + "/portForward/ns/web")
	dialer, err := portforward.NewSPDYOverWebsocketDialer(u, cfg)
	if err != nil {
		t.Fatal(err)
	}
	stop, ready := make(chan struct{}), make(chan struct{})
	defer close(stop)
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{"0:8080"}, stop, ready, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- fw.ForwardPorts() }()
	select {
	case <-ready:
	case err := <-errc:
		t.Fatalf("ForwardPorts: %v", err)
	}
	ports, _ := fw.GetPorts()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", ports[0].Local))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	_, _ = io.WriteString(c, "tunnel\n")
	buf := make([]byte, len("echo:tunnel\n"))
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "echo:tunnel\n" {
		t.Errorf("read %q, %v", buf, err)
	}
}

// recordingStreams records what Exec is given.
type recordingStreams struct {
	kubelettest.HostStreams
	tty     bool
	stderr  bool
	resizes []container.TerminalSize
}

func (r *recordingStreams) Exec(_ context.Context, _ types.UID, _ string, opts container.ExecOptions) (int, error) {
	r.tty, r.stderr = opts.TTY, opts.Stderr != nil
	for s := range opts.Resize {
		r.resizes = append(r.resizes, s)
		if len(r.resizes) == 2 {
			break
		}
	}
	_, _ = io.WriteString(opts.Stdout, "tty done\n")
	return 0, nil
}

type sizes struct {
	next []remotecommand.TerminalSize
}

func (s *sizes) Next() *remotecommand.TerminalSize {
	if len(s.next) == 0 {
		return nil // no more: client-go stops asking
	}
	n := s.next[0]
	s.next = s.next[1:]
	return &n
}

// TestExecTTY: a TTY exec has no separate stderr and gets the client's
// terminal sizes.
func TestExecTTY(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ca, err := pki.LoadOrCreateCA(t.TempDir(), "test-ca")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingStreams{}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "u"}, Spec: corev1.PodSpec{NodeName: "a", Containers: []corev1.Container{{Name: "c"}}}}
	srv, err := New(Config{Nodes: []string{"a"},
		Lookup: func(string, string) (Target, bool) {
			return Target{Pod: pod, UID: pod.UID, Node: "a", Streams: rec}, true
		},
		Pods: func(string) []*corev1.Pod { return nil },
		Authenticator: authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) {
			return &authenticator.Response{User: &user.DefaultInfo{Name: "admin"}}, true, nil
		}),
		Authorizer: authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
			return authorizer.DecisionAllow, "", nil
		})})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	l := &lab{srv: srv, ca: ca}
	cfg := l.config(t, "a", "admin")
	ex, err := remotecommand.NewSPDYExecutor(cfg, "POST", execURL(cfg, "/exec/ns/p/c", url.Values{"command": {"sh"}, "input": {"1"}, "output": {"1"}, "tty": {"1"}}))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: strings.NewReader(""), Stdout: &out, Tty: true,
		TerminalSizeQueue: &sizes{next: []remotecommand.TerminalSize{{Width: 80, Height: 24}, {Width: 100, Height: 30}}}})
	if err != nil || out.String() != "tty done\n" {
		t.Fatalf("tty exec: %q, %v", out.String(), err)
	}
	want := []container.TerminalSize{{Width: 80, Height: 24}, {Width: 100, Height: 30}}
	if !rec.tty || rec.stderr || len(rec.resizes) != 2 || rec.resizes[0] != want[0] || rec.resizes[1] != want[1] {
		t.Errorf("runtime got tty %v, stderr %v, sizes %v; want tty, no stderr, %v", rec.tty, rec.stderr, rec.resizes, want)
	}
}

// /metrics has the kubelet's series for the node's own pods (the e2e
// framework's metrics grabber reads it through nodes/proxy).
func TestMetrics(t *testing.T) {
	l := newLab(t)
	code, body := l.get(t, "b", "admin", "GET", "/metrics")
	if code != 200 {
		t.Fatalf("/metrics = %d %q", code, body)
	}
	for _, want := range []string{`kubelet_node_name{node="b"} 1`, "kubelet_running_pods ", `kubelet_running_containers{container_state="running"} `} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics of b lacks %q:\n%s", want, body)
		}
	}
	if code, _ := l.get(t, "b", "nobody", "GET", "/metrics"); code != 403 {
		t.Errorf("nobody's /metrics = %d, want 403", code)
	}
}
