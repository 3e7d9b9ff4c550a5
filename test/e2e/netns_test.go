package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	vnetns "github.com/vishvananda/netns"
)

// The netns runtime's e2e: `svcplane up --runtime netns --nodes 3` runs in
// a namespace the test made (its "host": the bridge, the routes to the
// nodes' pod CIDRs and the Services live there), and the test talks to
// ClusterIPs, NodePorts and pods from it. The bridge is svcpe2e0 in the
// dedicated range 10.250.0.0/16 (host .1, nodes .2–.4).
const netnsManifest = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}
  strategy: {rollingUpdate: {maxUnavailable: 0, maxSurge: 2}}
  template:
    metadata:
      labels: {app: web}
      annotations: {svcplane.io/termination-delay: 4s}
    spec:
      terminationGracePeriodSeconds: 10
      containers:
      - name: app
        image: registry.k8s.io/e2e-test-images/agnhost:2.53
        args: [netexec, --http-port=8080, --udp-port=8081]
        readinessProbe:
          httpGet: {path: /healthz, port: 8080}
          periodSeconds: 1
---
apiVersion: v1
kind: Pod
metadata: {name: unready, labels: {app: web}}
spec:
  containers:
  - name: app
    image: registry.k8s.io/e2e-test-images/agnhost:2.53
    args: [netexec, --http-port=8080]
    readinessProbe:
      httpGet: {path: "/echo?code=503", port: 8080}
      periodSeconds: 1
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: sticky}
spec:
  selector: {app: web}
  sessionAffinity: ClientIP
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Pod
metadata: {name: lonely, labels: {app: lonely}}
spec:
  nodeName: vm-0
  containers:
  - {name: app, image: registry.k8s.io/e2e-test-images/agnhost:2.53, args: [serve-hostname, --port=8080]}
---
apiVersion: v1
kind: Service
metadata: {name: lonely}
spec:
  type: NodePort
  externalTrafficPolicy: Local
  selector: {app: lonely}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: web-local}
spec:
  type: NodePort
  externalTrafficPolicy: Local
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Pod
metadata: {name: bad}
spec:
  containers:
  - {name: app, image: registry.k8s.io/e2e-test-images/agnhost:2.53, args: [no-such-subcommand]}
---
apiVersion: v1
kind: Pod
metadata: {name: unpullable}
spec:
  containers:
  - {name: app, image: registry.example/nosuch:404}
`

var netnsNodeIPs = map[string]string{"vm-0": "10.250.0.2", "vm-1": "10.250.0.3", "vm-2": "10.250.0.4"}

func TestNetnsRuntime(t *testing.T) {
	requireRoot(t)
	host := newNetns(t, "10.249.0.1")
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	start := func() *proc {
		p := host.start(t, bin, "up", "--data-dir", dir, "--runtime", "netns", "--nodes", "3", "--node-name", "vm",
			"--bind-address", "0.0.0.0", "--advertise-address", "10.249.0.1", "--netns-bridge", "svcpe2e0",
			"--unpullable-images", `^registry\.example/`)
		host.waitReady(t, p, kubeconfig)
		return p
	}
	kubectl := func(stdin string, args ...string) string {
		t.Helper()
		out, err := host.kubectl(kubeconfig, stdin, args...)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	up := start()
	waitFor(t, "3 Ready nodes", 60*time.Second, func() bool {
		out, _ := host.kubectl(kubeconfig, "", "get", "nodes", "-o", `jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{" "}{end}`)
		return strings.Count(out, "True") == 3
	})
	kubectl(netnsManifest, "apply", "-f", "-")
	waitWebReady := func() {
		waitFor(t, "6 ready web pods", 90*time.Second, func() bool {
			out, _ := host.kubectl(kubeconfig, "", "get", "deployment", "web", "-o", "jsonpath={.status.readyReplicas}/{.status.updatedReplicas}/{.status.replicas}")
			return out == "6/6/6"
		})
	}
	waitWebReady()
	clusterIP := func(svc string) string { return kubectl("", "get", "service", svc, "-o", "jsonpath={.spec.clusterIP}") }
	nodePort := func(svc string) string {
		return kubectl("", "get", "service", svc, "-o", "jsonpath={.spec.ports[0].nodePort}")
	}
	webIP := clusterIP("web")
	hostnames := func(url string, n int) (map[string]int, int) {
		seen, failed := map[string]int{}, 0
		for i := 0; i < n; i++ {
			body, err := host.httpGet(url, 2*time.Second)
			if err != nil {
				failed++
				continue
			}
			seen[body]++
		}
		return seen, failed
	}

	t.Run("ClusterIP from the host reaches pods on every node, never an unready one", func(t *testing.T) {
		var seen map[string]int
		waitFor(t, "≥ 3 web pods answering the ClusterIP", 30*time.Second, func() bool {
			seen, _ = hostnames("http://"+webIP+"/hostname", 60)
			return len(seen) >= 3
		})
		if seen["unready"] > 0 {
			t.Fatalf("the pod whose readiness probe fails got %d requests: %v", seen["unready"], seen)
		}
		status := kubectl("", "get", "pod", "unready", "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		if status != "False" {
			t.Fatalf("unready pod's Ready condition %q", status)
		}
	})

	t.Run("pod to Service to pod across nodes", func(t *testing.T) {
		ip := kubectl("", "get", "pod", "lonely", "-o", "jsonpath={.status.podIP}")
		web := strings.Fields(kubectl("", "get", "pods", "-l", "app=web", "--field-selector", "spec.nodeName=vm-2", "-o", "jsonpath={.items[*].status.podIP}"))
		if len(web) == 0 {
			t.Skip("no web pod on vm-2")
		}
		body, err := host.httpGet("http://"+web[0]+":8080/dial?request=hostname&host="+webIP+"&port=80&tries=6", 10*time.Second)
		var out struct{ Responses, Errors []string }
		if err != nil || json.Unmarshal([]byte(body), &out) != nil || len(out.Responses) != 6 {
			t.Fatalf("dial through the ClusterIP from a pod: %q %v", body, err)
		}
		// The kubernetes Service (the API server at the host's address)
		// through the node's default route: plain HTTP to its HTTPS port
		// gets Go's answer, which proves the round trip.
		body, err = host.httpGet("http://"+web[0]+":8080/dial?request=version&host=10.96.0.1&port=443&tries=1", 10*time.Second)
		if err != nil || !strings.Contains(body, "Client sent an HTTP request to an HTTPS server") {
			t.Fatalf("pod to the kubernetes Service: %q %v", body, err)
		}
		body, err = host.httpGet("http://"+web[0]+":8080/dial?request=hostname&protocol=udp&host="+ip+"&port=8080&tries=1", 10*time.Second)
		if err != nil || !strings.Contains(body, "errors") {
			// serve-hostname in HTTP mode has no UDP: the dial must fail, not hang.
			t.Fatalf("UDP to a TCP-only pod: %q %v", body, err)
		}
	})

	t.Run("kubectl exec and logs through the kubelet API", func(t *testing.T) {
		// kubectl exec (WebSocket, kubectl ≥ 1.31) runs the host's curl in
		// the pod's namespace, through the ClusterIP to some web pod;
		// that pod's log shows the request netexec served.
		out, err := host.kubectl(kubeconfig, "", "get", "pods", "-l", "app=web", "--field-selector", "metadata.name!=unready", "-o", "jsonpath={.items[*].metadata.name}")
		pods := strings.Fields(out)
		if err != nil || len(pods) == 0 {
			t.Fatalf("web pods: %v %q", err, out)
		}
		// Retried: run alone, this subtest may come before the pod's
		// node proxy has synced the Service.
		var answered string
		waitFor(t, "kubectl exec … curl <ClusterIP>/hostname to answer a web pod's name", 20*time.Second, func() bool {
			out, err := host.kubectl(kubeconfig, "", "exec", pods[0], "--", "curl", "-s", "--max-time", "2", "http://"+webIP+"/hostname")
			lines := strings.Split(strings.TrimSpace(out), "\n")
			answered = lines[len(lines)-1] // kubectl 1.32 may log a line before it
			return err == nil && strings.HasPrefix(answered, "web-")
		})
		waitFor(t, "the answering pod's log to show the request", 10*time.Second, func() bool {
			out, _ := host.kubectl(kubeconfig, "", "logs", answered)
			return strings.Contains(out, "GET /hostname")
		})
		// By name: the pod's resolv.conf (ClusterFirst) points at kube-dns,
		// whose search path completes "web" in the pod's namespace.
		waitFor(t, "kubectl exec … curl web/hostname (the Service by name)", 20*time.Second, func() bool {
			out, err := host.kubectl(kubeconfig, "", "exec", pods[0], "--", "curl", "-s", "--max-time", "2", "http://web/hostname")
			return err == nil && strings.Contains(out, "web-")
		})
		// pods/proxy: the API server to the pod's IP (the e2e framework's
		// "pods responding" check uses it).
		if out, err := host.kubectl(kubeconfig, "", "get", "--raw", "/api/v1/namespaces/default/pods/"+pods[0]+":8080/proxy/hostname"); err != nil || strings.TrimSpace(out) != pods[0] {
			t.Fatalf("pods/proxy to %s:8080/hostname: %v %q", pods[0], err, out)
		}
		// The exit code of the command comes back to kubectl.
		if out, err := host.kubectl(kubeconfig, "", "exec", pods[0], "--", "sh", "-c", "exit 3"); err == nil || !strings.Contains(out, "exit code 3") {
			t.Fatalf("kubectl exec … exit 3: %v %q, want exit code 3", err, out)
		}
	})

	t.Run("NodePort with externalTrafficPolicy Local", func(t *testing.T) {
		onNode := map[string]string{}
		out := kubectl("", "get", "pods", "-l", "app=web", "-o", `jsonpath={range .items[*]}{.metadata.name}={.spec.nodeName}{"\n"}{end}`)
		for _, line := range strings.Fields(out) {
			name, node, _ := strings.Cut(line, "=")
			onNode[name] = node
		}
		port := nodePort("web-local")
		for node, ip := range netnsNodeIPs {
			waitFor(t, "NodePort on "+node, 20*time.Second, func() bool {
				seen, failed := hostnames("http://"+ip+":"+port+"/hostname", 8)
				if failed > 0 || len(seen) == 0 {
					return false
				}
				for name := range seen {
					if onNode[name] != node {
						t.Fatalf("NodePort of %s answered from %s on %s", node, name, onNode[name])
					}
				}
				return true
			})
		}
		lonely := nodePort("lonely")
		waitFor(t, "lonely's NodePort on vm-0", 20*time.Second, func() bool {
			body, err := host.httpGet("http://10.250.0.2:"+lonely+"/", 2*time.Second)
			return err == nil && body == "lonely"
		})
		for _, ip := range []string{"10.250.0.3", "10.250.0.4"} {
			if body, err := host.httpGet("http://"+ip+":"+lonely+"/", 2*time.Second); err == nil {
				t.Fatalf("a node without a local endpoint answered %q", body)
			}
		}
	})

	t.Run("ClientIP affinity sticks", func(t *testing.T) {
		seen, failed := hostnames("http://"+clusterIP("sticky")+"/hostname", 20)
		if failed > 0 || len(seen) != 1 {
			t.Fatalf("affinity: %v (%d failed)", seen, failed)
		}
	})

	t.Run("bad input or an unpullable image fails the container, not the agent", func(t *testing.T) {
		waitFor(t, "bad's container failing", 30*time.Second, func() bool {
			out, _ := host.kubectl(kubeconfig, "", "get", "pod", "bad", "-o", "jsonpath={.status.containerStatuses[0].lastState.terminated.exitCode}/{.status.containerStatuses[0].state.waiting.reason}")
			return out == "1/CrashLoopBackOff"
		})
		waitFor(t, "unpullable's image pull failing", 30*time.Second, func() bool {
			out, _ := host.kubectl(kubeconfig, "", "get", "pod", "unpullable", "-o", "jsonpath={.status.phase}/{.status.containerStatuses[0].state.waiting.reason}")
			return out == "Pending/ErrImagePull" || out == "Pending/ImagePullBackOff"
		})
		select {
		case <-up.done:
			t.Fatal("svcplane up exited")
		default:
		}
	})

	t.Run("a rollout loses no request", func(t *testing.T) {
		var ok, failed atomic.Int64
		var firstErr atomic.Value
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := host.httpGet("http://"+webIP+"/hostname", 2*time.Second); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				} else {
					ok.Add(1)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
		kubectl("", "set", "env", "deployment/web", "ROLLOUT=1")
		waitFor(t, "the rollout", 120*time.Second, func() bool {
			out, _ := host.kubectl(kubeconfig, "", "get", "deployment", "web", "-o",
				"jsonpath={.status.updatedReplicas}/{.status.readyReplicas}/{.status.replicas}/{.status.observedGeneration}/{.metadata.generation}")
			f := strings.Split(out, "/")
			return len(f) == 5 && f[0] == "6" && f[1] == "6" && f[2] == "6" && f[3] == f[4]
		})
		time.Sleep(5 * time.Second) // the old pods' termination delay
		close(stop)
		wg.Wait()
		if failed.Load() > 0 || ok.Load() < 50 {
			t.Fatalf("during the rollout %d requests failed (first: %v), %d succeeded", failed.Load(), firstErr.Load(), ok.Load())
		}
		t.Logf("rollout: %d requests, none failed", ok.Load())
	})

	// podIPs are the web pods and their addresses once none is
	// terminating (the rollout's old pods end within their delay).
	podIPs := func() string {
		var out string
		waitFor(t, "no terminating web pod", 30*time.Second, func() bool {
			s, err := host.kubectl(kubeconfig, "", "get", "pods", "-l", "app=web", "-o",
				`jsonpath={range .items[*]}{.metadata.name}={.status.podIP}{.metadata.deletionTimestamp} {end}`)
			out = s
			return err == nil && !strings.Contains(s, "Z ") // a deletionTimestamp ends in Z
		})
		return out
	}
	t.Run("restarting keeps pods and traffic", func(t *testing.T) {
		before := podIPs()
		up.signal(t, syscall.SIGTERM)
		if links := host.links(t); len(links) != 1 {
			t.Fatalf("after stop the host has links %v", links)
		}
		if routes := strings.TrimSpace(run(t, "ip", "-n", host.name, "-4", "route", "show")); routes != "" {
			t.Fatalf("after stop the host has routes:\n%s", routes)
		}
		if out, _ := exec.Command("pgrep", "-f", dir).Output(); len(out) > 0 {
			t.Fatalf("processes left after stop: %s", out)
		}
		up = start()
		waitWebReady()
		if after := podIPs(); after != before {
			t.Fatalf("pods changed over a restart:\n%s\n%s", before, after)
		}
		waitFor(t, "traffic after the restart", 30*time.Second, func() bool {
			seen, _ := hostnames("http://"+webIP+"/hostname", 30)
			return len(seen) >= 3
		})
	})

	t.Run("kill -9 then start cleans up", func(t *testing.T) {
		_ = up.cmd.Process.Signal(syscall.SIGKILL)
		up.wait(t, syscall.SIGKILL)
		waitFor(t, "the proxies gone with the agent", 10*time.Second, func() bool {
			out, _ := exec.Command("pgrep", "-f", dir).Output()
			return len(out) == 0
		})
		up = start()
		waitWebReady()
		waitFor(t, "traffic after the crash", 30*time.Second, func() bool {
			seen, _ := hostnames("http://"+webIP+"/hostname", 30)
			return len(seen) >= 3
		})
		if links := host.links(t); len(links) != 5 { // lo, bridge, three node veths
			t.Fatalf("after a crash and start the host has links %v", links)
		}
	})

	up.signal(t, syscall.SIGTERM)
	if links := host.links(t); len(links) != 1 {
		t.Fatalf("after stop the host has links %v", links)
	}
}

// links are the names of n's interfaces.
func (n *netns) links(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(run(t, "ip", "-n", n.name, "-br", "link")), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names
}

// httpGet is a GET from inside n, the body of a 2xx answer.
func (n *netns) httpGet(url string, timeout time.Duration) (string, error) {
	h, err := vnetns.GetFromName(n.name)
	if err != nil {
		return "", err
	}
	defer h.Close()
	client := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var c net.Conn
			err := inNamespace(h, func() (err error) {
				c, err = (&net.Dialer{}).DialContext(ctx, network, addr)
				return err
			})
			return c, err
		}}}
	resp, err := client.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode/100 != 2 {
		err = fmt.Errorf("%s: %s", url, resp.Status)
	}
	return string(b), err
}

// inNamespace runs fn on a locked thread inside ns (sockets it opens are
// ns's); a thread that cannot return stays locked and exits.
func inNamespace(ns vnetns.NsHandle, fn func() error) error {
	runtime.LockOSThread()
	orig, err := vnetns.Get()
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	defer orig.Close()
	if err := vnetns.Set(ns); err != nil {
		runtime.UnlockOSThread()
		return err
	}
	ferr := fn()
	if err := vnetns.Set(orig); err != nil {
		return err
	}
	runtime.UnlockOSThread()
	return ferr
}

// TestNetnsRuntimeProxyModes: every node's own proxy, in each mode, serves
// ClusterIPs from the host and NodePorts on each node's address.
func TestNetnsRuntimeProxyModes(t *testing.T) {
	requireRoot(t)
	for _, mode := range []string{"iptables", "ipvs", "userspace"} {
		t.Run(mode, func(t *testing.T) {
			host := newNetns(t, "10.249.0.1")
			dir := t.TempDir()
			kubeconfig := filepath.Join(dir, "kubeconfig")
			up := host.start(t, bin, "up", "--data-dir", dir, "--runtime", "netns", "--nodes", "2", "--node-name", "vm",
				"--proxy-mode", mode, "--bind-address", "0.0.0.0", "--advertise-address", "10.249.0.1", "--netns-bridge", "svcpe2e1")
			host.waitReady(t, up, kubeconfig)
			kubectl := func(args ...string) string {
				t.Helper()
				out, err := host.kubectl(kubeconfig, "", args...)
				if err != nil {
					t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
				}
				return out
			}
			waitFor(t, "the default ServiceAccount", 30*time.Second, func() bool {
				_, err := host.kubectl(kubeconfig, "", "get", "serviceaccount", "default")
				return err == nil
			})
			kubectl("create", "deployment", "web", "--image=registry.k8s.io/e2e-test-images/agnhost:2.53", "--replicas=4", "--", "/agnhost", "netexec", "--http-port=8080")
			kubectl("expose", "deployment", "web", "--port=80", "--target-port=8080", "--type=NodePort")
			ip := kubectl("get", "service", "web", "-o", "jsonpath={.spec.clusterIP}")
			port := kubectl("get", "service", "web", "-o", "jsonpath={.spec.ports[0].nodePort}")
			for _, url := range []string{"http://" + ip + "/hostname", "http://10.250.0.3:" + port + "/hostname"} {
				waitFor(t, "≥ 2 pods behind "+url, 60*time.Second, func() bool {
					seen := map[string]bool{}
					for i := 0; i < 20; i++ {
						if body, err := host.httpGet(url, 2*time.Second); err == nil {
							seen[body] = true
						}
					}
					return len(seen) >= 2
				})
			}
			up.signal(t, syscall.SIGTERM)
			if links := host.links(t); len(links) != 1 {
				t.Fatalf("after stop the host has links %v", links)
			}
		})
	}
}
