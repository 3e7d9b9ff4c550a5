package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestLowDiskRefusesWritesKeepsReads runs `svcplane up` with its data dir
// on a 512 MiB tmpfs, fills the filesystem to below the 256 MiB minimum:
// writes get 503 with the figures, reads go on, the process lives; once
// the filler is removed, writes work again without a restart.
func TestLowDiskRefusesWritesKeepsReads(t *testing.T) {
	requireRoot(t)
	t.Parallel()
	mnt := t.TempDir()
	run(t, "mount", "-t", "tmpfs", "-o", "size=512m", "tmpfs", mnt)
	t.Cleanup(func() { _ = exec.Command("umount", "-l", mnt).Run() })
	up := &hostServer{t: t, dir: filepath.Join(mnt, "data"), port: freePort(t), args: []string{"up",
		"--nodes", "0", "--proxy-mode", "none", "--advertise-address", "10.203.0.41"}}
	up.start()
	c := up.client()
	ctx := context.Background()
	create := func(prefix string) error {
		_, err := c.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}, metav1.CreateOptions{})
		return err
	}
	before, err := c.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}}, metav1.CreateOptions{})
	noErr(t, err)

	var st syscall.Statfs_t
	noErr(t, syscall.Statfs(mnt, &st))
	fill := int64(st.Bavail*uint64(st.Bsize)) - 150<<20 // leave 150 MiB
	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	noErr(t, err)
	noErr(t, syscall.Fallocate(int(f.Fd()), 0, 0, fill))
	noErr(t, f.Close())

	var refused error
	waitFor(t, "writes to be refused", 20*time.Second, func() bool {
		refused = create("during")
		return refused != nil
	})
	if !apierrors.IsServiceUnavailable(refused) || !strings.Contains(refused.Error(), "MiB free, below the 256 MiB") {
		t.Fatalf("a write on a low disk: %v, want 503 naming the figures", refused)
	}
	t.Logf("a write on a low disk: %v", refused)
	if _, err := c.CoreV1().ConfigMaps("default").Get(ctx, before.Name, metav1.GetOptions{}); err != nil {
		t.Fatalf("a read on a low disk: %v", err)
	}
	if _, err := c.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("a list on a low disk: %v", err)
	}

	noErr(t, os.Remove(filler))
	waitFor(t, "writes to be accepted again", 20*time.Second, func() bool { return create("after") == nil })
	select {
	case <-up.p.done:
		t.Fatalf("svcplane up exited:\n%s", tail(up.p.log.String()))
	default:
	}
}

// TestSecondUpOnOneDataDirRefused: a second `svcplane up` on a data dir in
// use exits at once with a message naming the holder, and the first keeps
// serving.
func TestSecondUpOnOneDataDirRefused(t *testing.T) {
	requireRoot(t)
	t.Parallel()
	first := &hostServer{t: t, dir: filepath.Join(t.TempDir(), "data"), port: freePort(t), args: []string{"up",
		"--nodes", "0", "--proxy-mode", "none"}}
	first.start()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "up", "--nodes", "0", "--proxy-mode", "none", "--data-dir", first.dir,
		"--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(freePort(t))).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the second up did not exit within 10 s:\n%s", out)
	}
	if err == nil || !strings.Contains(string(out), "is used by another svcplane process (pid "+strconv.Itoa(first.p.cmd.Process.Pid)+")") {
		t.Fatalf("the second up: %v\n%s", err, out)
	}
	if code := readyz(first); code != 200 {
		t.Fatalf("the first up's /readyz: %d", code)
	}
}
