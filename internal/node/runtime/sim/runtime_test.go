package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/svcplane/svcplane/internal/node/container"
	"github.com/svcplane/svcplane/internal/testutil"
)

func pod(uid, node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid)}, Spec: corev1.PodSpec{NodeName: node}}
}

func TestIPsUniqueWithinPodCIDRs(t *testing.T) {
	r := New(clocktesting.NewFakeClock(time.Unix(0, 0)))
	v4, v6 := netip.MustParsePrefix("10.244.3.0/28"), netip.MustParsePrefix("fd00:10:0:3::/64")
	if err := r.SetNode("n", []string{v4.String(), v6.String()}, []string{"192.168.0.10"}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	// A /28 has 16 addresses: network, bridge (.1) and broadcast are never given out.
	for i := 0; i < 13; i++ {
		p, err := r.RunPod(pod(fmt.Sprint(i), "n"))
		if err != nil {
			t.Fatal(i, err)
		}
		if len(p.IPs) != 2 {
			t.Fatalf("dual-stack node gave %v", p.IPs)
		}
		for j, s := range p.IPs {
			ip := netip.MustParseAddr(s)
			want := []netip.Prefix{v4, v6}[j]
			if !want.Contains(ip) || seen[s] || ip == want.Addr() || ip == want.Addr().Next() {
				t.Fatalf("pod %d got %s (family %d): outside %s, reserved or a duplicate", i, s, j, want)
			}
			seen[s] = true
		}
	}
	if seen["10.244.3.15"] {
		t.Fatal("broadcast address given out")
	}
	if _, err := r.RunPod(pod("full", "n")); !errors.Is(err, ErrFull) {
		t.Fatalf("14th pod in a /28: %v, want ErrFull", err)
	}
	again, _ := r.RunPod(pod("3", "n"))
	if first, _ := r.Running("3"); again.IPs[0] != first.IPs[0] {
		t.Fatal("running a pod twice changed its IPs")
	}
	freed := again.IPs[0]
	r.KillPod("3")
	p, err := r.RunPod(pod("new", "n"))
	if err != nil || p.IPs[0] != freed {
		t.Fatalf("after a kill the only free IPv4 %s should be reused: %v %v", freed, p.IPs, err)
	}
	if r.Len() != 13 {
		t.Fatalf("Len %d", r.Len())
	}
}

func TestNodeWithoutPodCIDRsAndHostNetwork(t *testing.T) {
	r := New(clocktesting.NewFakeClock(time.Unix(0, 0)))
	if _, err := r.RunPod(pod("a", "n")); err == nil {
		t.Fatal("a node without pod CIDRs ran a pod")
	}
	_ = r.SetNode("n", []string{"10.244.0.0/24"}, []string{"192.168.0.10"})
	hp := pod("h", "n")
	hp.Spec.HostNetwork = true
	p, err := r.RunPod(hp)
	if err != nil || len(p.IPs) != 1 || p.IPs[0] != "192.168.0.10" {
		t.Fatalf("hostNetwork pod: %v %v", p.IPs, err)
	}
}

func TestReadyAtFollowsInitialDelay(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	r := New(clk)
	_ = r.SetNode("n", []string{"10.244.0.0/24"}, nil)
	pd := pod("a", "n")
	pd.Spec.Containers = []corev1.Container{
		{Name: "a", ReadinessProbe: &corev1.Probe{InitialDelaySeconds: 3}},
		{Name: "b", ReadinessProbe: &corev1.Probe{InitialDelaySeconds: 7}},
		{Name: "c"},
	}
	p, _ := r.RunPod(pd)
	if got := p.ReadyAt(pd); !got.Equal(time.Unix(1007, 0)) {
		t.Fatalf("ReadyAt %v, want started+7s", got)
	}
	if d := ReadyDelay(pod("x", "n")); d != 0 {
		t.Fatalf("no probe: delay %v", d)
	}
}

func TestAddOffset(t *testing.T) {
	for _, c := range []struct {
		base string
		off  uint64
		want string
	}{{"10.0.0.0", 2, "10.0.0.2"}, {"10.0.0.0", 256, "10.0.1.0"}, {"fd00::", 65537, "fd00::1:1"}, {"10.0.0.250", 10, "10.0.1.4"}} {
		if got := addOffset(netip.MustParseAddr(c.base), c.off); got.String() != c.want {
			t.Errorf("%s+%d = %s, want %s", c.base, c.off, got, c.want)
		}
	}
}

func TestAdoptKeepsRunningPodsAddresses(t *testing.T) {
	r := New(clocktesting.NewFakeClock(time.Unix(0, 0)))
	_ = r.SetNode("n", []string{"10.244.0.0/29"}, nil) // offsets 2..6 usable
	old := pod("old", "n")
	start := metav1.NewTime(time.Unix(50, 0))
	old.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &start, PodIPs: []corev1.PodIP{{IP: "10.244.0.2"}}}
	if !r.Adopt(old) {
		t.Fatal("running pod not adopted")
	}
	if p, _ := r.Running("old"); !p.StartedAt.Equal(start.Time) || p.IPs[0] != "10.244.0.2" {
		t.Fatalf("adopted %+v", p)
	}
	p, _ := r.RunPod(pod("new", "n"))
	if p.IPs[0] == "10.244.0.2" {
		t.Fatal("an adopted pod's IP was handed out again")
	}
	if r.Adopt(pod("pending", "n")) {
		t.Fatal("a pod without IPs was adopted")
	}
	// A Pending pod with an address (a container waits for its image)
	// keeps it too; an ended one gives it up.
	waiting := pod("waiting", "n")
	waiting.Status = corev1.PodStatus{Phase: corev1.PodPending, StartTime: &start, PodIPs: []corev1.PodIP{{IP: "10.244.0.4"}}}
	if !r.Adopt(waiting) {
		t.Fatal("a Pending pod with an address was not adopted")
	}
	ended := pod("ended", "n")
	ended.Status = corev1.PodStatus{Phase: corev1.PodSucceeded, StartTime: &start, PodIPs: []corev1.PodIP{{IP: "10.244.0.5"}}}
	if r.Adopt(ended) {
		t.Fatal("an ended pod was adopted")
	}
}

func TestStreams(t *testing.T) {
	r := New(clocktesting.NewFakeClock(time.Unix(1000, 0)))
	if err := r.SetNode("n", []string{"10.0.0.0/24"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := r.RunPod(pod("u1", "n")); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.Logs(context.Background(), "u1", "c", &corev1.PodLogOptions{}, &buf); err != nil || buf.Len() != 0 {
		t.Errorf("Logs of a running pod = %q, %v; want empty, nil", buf.String(), err)
	}
	if err := r.Logs(context.Background(), "gone", "c", &corev1.PodLogOptions{}, &buf); !errors.Is(err, container.ErrNotFound) {
		t.Errorf("Logs of an unknown pod: %v, want ErrNotFound", err)
	}
	if _, err := r.Exec(context.Background(), "u1", "c", container.ExecOptions{Command: []string{"true"}}); !errors.Is(err, container.ErrNotSupported) {
		t.Errorf("Exec: %v, want ErrNotSupported", err)
	}
	if err := r.PortForward(context.Background(), "u1", 80, nil); !errors.Is(err, container.ErrNotSupported) {
		t.Errorf("PortForward: %v, want ErrNotSupported", err)
	}
	if !r.RunsNoProcesses() {
		t.Error("RunsNoProcesses = false")
	}
	// Follow: the log ends when the pod is killed.
	done := make(chan error, 1)
	go func() { done <- r.Logs(context.Background(), "u1", "c", &corev1.PodLogOptions{Follow: true}, &buf) }()
	testutil.Eventually(t, 10*time.Second, "Logs -f waiting", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.following == 1
	})
	select {
	case err := <-done:
		t.Fatalf("Logs -f of a running pod returned before the kill: %v", err)
	default:
	}
	r.KillPod("u1")
	if err := <-done; err != nil {
		t.Errorf("Logs -f after the kill: %v", err)
	}
}
