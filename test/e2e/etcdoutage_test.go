package e2e

import (
	"context"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// hostEtcd is Debian's etcd on fixed loopback ports, restartable on its
// data dir.
type hostEtcd struct {
	t                 *testing.T
	dir, client, peer string
	p                 *proc
}

func newHostEtcd(t *testing.T) *hostEtcd {
	e := &hostEtcd{t: t, dir: filepath.Join(t.TempDir(), "etcd"),
		client: "http://127.0.0.1:" + strconv.Itoa(freePort(t)), peer: "http://127.0.0.1:" + strconv.Itoa(freePort(t))}
	e.start()
	return e
}

func (e *hostEtcd) start() {
	e.p = startHost(e.t, "etcd", "--name", "e0", "--data-dir", e.dir,
		"--listen-client-urls", e.client, "--advertise-client-urls", e.client,
		"--listen-peer-urls", e.peer, "--initial-advertise-peer-urls", e.peer, "--initial-cluster", "e0="+e.peer)
}

// TestEtcdOutage stops the external etcd for 30 s under a running server:
// requests fail with a clear 5xx or time out, /readyz fails, the process
// lives; when etcd returns, everything resumes without a restart: writes,
// an informer's watch started before the outage, the controllers.
func TestEtcdOutage(t *testing.T) {
	requireRoot(t)
	t.Parallel()
	e := newHostEtcd(t)
	s := &hostServer{t: t, dir: filepath.Join(t.TempDir(), "s"), port: freePort(t), args: []string{"server",
		"--etcd-servers", e.client, "--advertise-address", "10.203.0.31"}}
	s.start()
	c := s.client()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := make(chan string, 100)
	f := informers.NewSharedInformerFactoryWithOptions(c, 0, informers.WithNamespace("default"))
	_, _ = f.Core().V1().ConfigMaps().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) { seen <- obj.(*corev1.ConfigMap).Name },
	})
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())

	e.p.signal(t, syscall.SIGTERM)
	outage := time.Now()
	waitFor(t, "/readyz to fail", 30*time.Second, func() bool { return readyz(s) != http.StatusOK })
	rctx, rcancel := context.WithTimeout(context.Background(), 15*time.Second)
	_, err := c.CoreV1().ConfigMaps("default").Create(rctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "during"}}, metav1.CreateOptions{})
	rcancel()
	if err == nil {
		t.Fatal("a write succeeded with etcd down")
	}
	if st, ok := err.(apierrors.APIStatus); ok && st.Status().Code < 500 && st.Status().Code != 0 {
		t.Fatalf("a write with etcd down got %d, want a 5xx or a timeout: %v", st.Status().Code, err)
	}
	t.Logf("a write with etcd down: %v", err)
	time.Sleep(time.Until(outage.Add(30 * time.Second)))
	select {
	case <-s.p.done:
		t.Fatalf("the server exited during the etcd outage:\n%s", tail(s.p.log.String()))
	default:
	}

	e.start()
	back := time.Now()
	took := waitFor(t, "/readyz 200 again", 60*time.Second, func() bool { return readyz(s) == http.StatusOK })
	t.Logf("ready %v after etcd returned", took.Round(100*time.Millisecond))
	waitFor(t, "a write to succeed", 30*time.Second, func() bool {
		_, err := c.CoreV1().ConfigMaps("default").Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{})
		return err == nil || apierrors.IsAlreadyExists(err)
	})
	waitFor(t, "the informer's watch to see the new ConfigMap", 60*time.Second, func() bool {
		for {
			select {
			case name := <-seen:
				if name == "after" {
					return true
				}
			default:
				return false
			}
		}
	})
	one := int32(1)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "after"}, Spec: appsv1.DeploymentSpec{Replicas: &one,
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "after"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "after"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "pause"}}}}}}
	_, err = c.AppsV1().Deployments("default").Create(context.Background(), d, metav1.CreateOptions{})
	noErr(t, err)
	took = waitFor(t, "the controllers to create the Deployment's pod", 90*time.Second, func() bool {
		pods, err := c.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: "app=after"})
		return err == nil && len(pods.Items) == 1
	})
	t.Logf("controllers caught up: the Deployment's pod %v after its create (%v after etcd returned)", took.Round(100*time.Millisecond), time.Since(back).Round(100*time.Millisecond))
	if log := s.p.log.String(); strings.Contains(log, "panic:") {
		t.Fatalf("the server panicked:\n%s", tail(log))
	}
}

// readyz returns the server's /readyz status code (0 when unreachable).
func readyz(s *hostServer) int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	code := 0
	s.client().Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).StatusCode(&code)
	return code
}
