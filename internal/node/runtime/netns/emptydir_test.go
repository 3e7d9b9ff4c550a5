package netns

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/svcplane/svcplane/internal/node/container"
	"github.com/svcplane/svcplane/internal/testutil"
)

// Two containers share an emptyDir: a host program writes into it at its
// mount path, agnhost's test-webserver serves it; the mount path made on
// the host goes with the pod, and nothing outside the volumes is served.
func TestEmptyDirSharedByContainers(t *testing.T) {
	l := newLab(t)
	mp := "/svcplane-test-results-" + strings.ReplaceAll(t.Name(), "/", "-")
	if _, err := os.Stat(mp); err == nil {
		t.Fatalf("%s exists on the host", mp)
	}
	mount := []corev1.VolumeMount{{Name: "results", MountPath: mp}}
	p := l.runPod(t, "files", "n0", []corev1.Volume{{Name: "results", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		corev1.Container{Name: "web", Image: agnhostImage, Args: []string{"test-webserver", "--port", "8080"}, VolumeMounts: mount},
		corev1.Container{Name: "writer", Image: "busybox", Command: []string{"sh", "-c", "cd " + mp + " && echo OK > f && exec sleep 1000"}, VolumeMounts: mount})
	if _, err := os.Stat(mp); err != nil {
		t.Fatalf("the mount path was not made on the host: %v", err)
	}
	var got string
	testutil.Eventually(t, 10*time.Second, "the writer's file served", func() bool {
		got, _ = l.get("http://" + p.Status.PodIP + ":8080" + mp + "/f")
		return got == "OK\n"
	})
	if ents, _ := os.ReadDir(mp); len(ents) != 0 {
		t.Fatalf("the file was written to the host's %s: %v", mp, ents)
	}
	for _, path := range []string{"/etc/passwd", mp + "/nope", "/"} {
		if got, _ := l.get("http://" + p.Status.PodIP + ":8080" + path); got != "404 page not found\n" {
			t.Errorf("GET %s: %q, want a 404", path, got)
		}
	}
	var out bytes.Buffer
	if code, err := l.r.Exec(context.Background(), p.UID, "web", container.ExecOptions{Command: []string{"/agnhost", "dns-suffix"}, Stdout: &out}); err != nil || code != 0 ||
		out.String() != "default.svc.cluster.local,svc.cluster.local,cluster.local\n" {
		t.Fatalf("dns-suffix: %d %v %q", code, err, out.String())
	}
	out.Reset()
	if code, err := l.r.Exec(context.Background(), p.UID, "web", container.ExecOptions{Command: []string{"/agnhost", "dns-server-list"}, Stdout: &out}); err != nil || code != 0 ||
		out.String() != "10.96.0.10\n" {
		t.Fatalf("dns-server-list: %d %v %q", code, err, out.String())
	}
	l.r.KillPod(p.UID)
	if _, err := os.Stat(mp); !os.IsNotExist(err) {
		t.Fatalf("the mount path outlived its pod: %v", err)
	}
}

func (l *lab) runPod(t *testing.T, name, node string, vols []corev1.Volume, cs ...corev1.Container) *corev1.Pod {
	t.Helper()
	return l.start(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec: corev1.PodSpec{NodeName: node, Containers: cs, Volumes: vols}})
}

// Mount paths made on the host are counted by their users, removed
// (deepest first) when the last goes, and after a crash at the next start.
func TestMountpointsCountedAndRemoved(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "state", "svcpt0.mountpoints")
	m := newMountpoints(file)
	a, err := m.use(filepath.Join(root, "x", "y"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(root, "x"), filepath.Join(root, "x", "y")}; !slices.Equal(a, want) {
		t.Fatalf("made %v, want %v", a, want)
	}
	b, _ := m.use(filepath.Join(root, "x", "y"))
	m.release(a)
	if _, err := os.Stat(filepath.Join(root, "x", "y")); err != nil {
		t.Fatal("removed while another pod uses it")
	}
	saved, _ := os.ReadFile(file)
	// A crash now: the next runtime removes what the file lists.
	newMountpoints(file)
	if _, err := os.Stat(filepath.Join(root, "x")); !os.IsNotExist(err) {
		t.Fatalf("a crashed runtime's mount paths (%q) were left: %v", saved, err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatal("the state file was left")
	}
	_ = b
	// An existing directory is used, never removed.
	if dirs, _ := m.use(root); len(dirs) != 0 {
		t.Fatalf("claimed the existing %v", dirs)
	}
}
