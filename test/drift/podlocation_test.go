package drift

import (
	"context"
	"fmt"
	"math/rand"
	"net/url"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	kubeletclient "k8s.io/kubernetes/pkg/kubelet/client"
	podstore "k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/utils/ptr"

	ourclient "github.com/svcplane/svcplane/internal/kubeletclient"
	ourpod "github.com/svcplane/svcplane/internal/registry/core/pod"
)

// onePod serves one pod: ours as v1, upstream's as internal.
type onePod struct {
	v1       *corev1.Pod
	internal bool
}

func (g onePod) Get(_ context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	if name != g.v1.Name {
		return nil, apierrors.NewNotFound(corev1.Resource("pods"), name)
	}
	if !g.internal {
		return g.v1, nil
	}
	var p api.Pod
	if err := legacyscheme.Scheme.Convert(g.v1, &p, nil); err != nil {
		return nil, err
	}
	return &p, nil
}

type theirConn struct{}

func (theirConn) GetConnectionInfo(_ context.Context, node types.NodeName) (*kubeletclient.ConnectionInfo, error) {
	return &kubeletclient.ConnectionInfo{Scheme: "https", Hostname: "10.0.0." + string(node[len(node)-1:]), Port: "10250"}, nil
}

type ourConn struct{}

func (ourConn) GetConnectionInfo(_ context.Context, node string) (*ourclient.ConnectionInfo, error) {
	return &ourclient.ConnectionInfo{Scheme: "https", Hostname: "10.0.0." + node[len(node)-1:], Port: "10250"}, nil
}

func randomPodForLocation(r *rand.Rand) *corev1.Pod {
	names := r.Perm(6)
	pool := []string{"a", "b", "c", "init", "side", "eph"}
	next := 0
	take := func() string { n := pool[names[next]]; next++; return n }
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	for i := r.Intn(2); i > 0; i-- {
		p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: take()})
	}
	for i := r.Intn(4); i > 0; i-- {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: take()})
	}
	if r.Intn(3) == 0 {
		p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: take()}})
	}
	if r.Intn(4) != 0 {
		p.Spec.NodeName = "node-" + fmt.Sprint(1+r.Intn(3))
	}
	return p
}

func urlString(u *url.URL) string {
	if u == nil {
		return "<nil>"
	}
	return u.String()
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestPodLocationsLikeUpstream computes the kubelet URLs of exec, attach,
// port-forward and log for random pods and options with upstream's
// LogLocation/ExecLocation/AttachLocation/PortForwardLocation and ours:
// same URLs, same errors.
func TestPodLocationsLikeUpstream(t *testing.T) {
	r := rand.New(rand.NewSource(19))
	ctx := context.Background()
	containers := []string{"", "", "a", "b", "init", "eph", "nope"}
	urls, errs := 0, 0
	for i := 0; i < 3000; i++ {
		pod := randomPodForLocation(r)
		ours, theirs := onePod{v1: pod}, onePod{v1: pod, internal: true}
		name := "p"
		if r.Intn(20) == 0 {
			name = "missing"
		}
		c := containers[r.Intn(len(containers))]
		bools := func() (bool, bool, bool, bool) { return r.Intn(2) == 0, r.Intn(2) == 0, r.Intn(2) == 0, r.Intn(2) == 0 }
		check := func(what string, ou *url.URL, oerr error, tu *url.URL, terr error) {
			t.Helper()
			if urlString(ou) != urlString(tu) || errString(oerr) != errString(terr) {
				t.Fatalf("%s of %+v (container %q):\nupstream %s %v\nours     %s %v", what, pod.Spec, c, urlString(tu), terr, urlString(ou), oerr)
			}
			if terr != nil {
				errs++
			} else if tu != nil {
				urls++
			}
		}

		stdin, stdout, stderr, tty := bools()
		cmd := []string{"sh", "-c", "echo hi"}[:r.Intn(4)]
		exec := &corev1.PodExecOptions{Container: c, Stdin: stdin, Stdout: stdout, Stderr: stderr, TTY: tty, Command: cmd}
		var iexec api.PodExecOptions
		if err := legacyscheme.Scheme.Convert(exec, &iexec, nil); err != nil {
			t.Fatal(err)
		}
		ou, _, oerr := ourpod.ExecLocation(ctx, ours, ourConn{}, name, exec)
		tu, _, terr := podstore.ExecLocation(ctx, theirs, theirConn{}, name, &iexec)
		check("exec", ou, oerr, tu, terr)

		attach := &corev1.PodAttachOptions{Container: c, Stdin: stdin, Stdout: stdout, Stderr: stderr, TTY: tty}
		var iattach api.PodAttachOptions
		if err := legacyscheme.Scheme.Convert(attach, &iattach, nil); err != nil {
			t.Fatal(err)
		}
		ou, _, oerr = ourpod.AttachLocation(ctx, ours, ourConn{}, name, attach)
		tu, _, terr = podstore.AttachLocation(ctx, theirs, theirConn{}, name, &iattach)
		check("attach", ou, oerr, tu, terr)

		pf := &corev1.PodPortForwardOptions{Ports: []int32{80, 443, 8080}[:r.Intn(4)]}
		var ipf api.PodPortForwardOptions
		if err := legacyscheme.Scheme.Convert(pf, &ipf, nil); err != nil {
			t.Fatal(err)
		}
		ou, _, oerr = ourpod.PortForwardLocation(ctx, ours, ourConn{}, name, pf)
		tu, _, terr = podstore.PortForwardLocation(ctx, theirs, theirConn{}, name, &ipf)
		check("port-forward", ou, oerr, tu, terr)

		follow, previous, timestamps, _ := bools()
		logs := &corev1.PodLogOptions{Container: c, Follow: follow, Previous: previous, Timestamps: timestamps}
		if r.Intn(2) == 0 {
			logs.TailLines = ptr.To(int64(r.Intn(10)))
		}
		if r.Intn(2) == 0 {
			logs.LimitBytes = ptr.To(int64(1 + r.Intn(100)))
		}
		switch r.Intn(3) {
		case 0:
			logs.SinceSeconds = ptr.To(int64(1 + r.Intn(100)))
		case 1:
			logs.SinceTime = &metav1.Time{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))}
		}
		var ilogs api.PodLogOptions
		if err := legacyscheme.Scheme.Convert(logs, &ilogs, nil); err != nil {
			t.Fatal(err)
		}
		ou, _, oerr = ourpod.LogLocation(ctx, ours, ourConn{}, name, logs)
		tu, _, terr = podstore.LogLocation(ctx, theirs, theirConn{}, name, &ilogs)
		check("log", ou, oerr, tu, terr)
	}
	if urls < 1000 || errs < 1000 {
		t.Fatalf("only %d URLs and %d errors compared", urls, errs)
	}
}
