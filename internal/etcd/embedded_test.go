package etcd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

func TestServesOnUnixSocketOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded etcd")
	}
	dir := t.TempDir()
	e, err := Start(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	want, _ := Endpoint(dir)
	if len(e.Endpoints) != 1 || e.Endpoints[0] != want {
		t.Fatalf("endpoints %v, want [%s]", e.Endpoints, want)
	}
	c, ctx := dialAndPut(t, e, "/k")
	m, err := c.MemberList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, mem := range m.Members {
		for _, u := range append(mem.ClientURLs, mem.PeerURLs...) {
			if u[:5] != "unix:" {
				t.Errorf("member %s serves on %s, not a unix socket", mem.Name, u)
			}
		}
	}
}

// roleEnv makes the test binary, re-executed as another user, dial the
// socket named by the variable and exit 0 if etcd answered.
const roleEnv = "SVCPLANE_ETCD_PROBE"

func TestMain(m *testing.M) {
	if sock := os.Getenv(roleEnv); sock != "" {
		os.Exit(probe(sock))
	}
	os.Exit(m.Run())
}

// probe tries to read from etcd through sock: 0 read, 3 refused.
func probe(sock string) int {
	conn, err := net.DialTimeout("unix", sock, 2*time.Second)
	if err != nil {
		fmt.Println("dial:", err)
		return 3
	}
	conn.Close()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{"unix://" + sock}, DialTimeout: 2 * time.Second})
	if err != nil {
		fmt.Println("client:", err)
		return 3
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if _, err := c.Get(ctx, "/", clientv3.WithPrefix()); err != nil {
		fmt.Println("get:", err)
		return 3
	}
	return 0
}

// TestUnprivilegedUserCannotReachEtcd re-runs this binary as nobody
// against the member's socket: it must be refused, while root reads.
func TestUnprivilegedUserCannotReachEtcd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded etcd")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a probe as user nobody")
	}
	dir := t.TempDir()
	e, err := Start(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	sock := filepath.Join(dir, SocketName)
	exe := copyExecutable(t)
	run := func(cred *syscall.Credential) (int, string) {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), roleEnv+"="+sock)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatalf("probe: %v\n%s", err, out)
		}
		return 0, string(out)
	}
	if code, out := run(nil); code != 0 {
		t.Fatalf("root could not read etcd through its socket (exit %d):\n%s", code, out)
	}
	code, out := run(&syscall.Credential{Uid: 65534, Gid: 65534})
	if code != 3 {
		t.Fatalf("user nobody reached etcd (exit %d):\n%s", code, out)
	}
	if !strings.Contains(out, "permission denied") {
		t.Fatalf("nobody was refused, but not by permissions:\n%s", out)
	}
}

// copyExecutable copies the test binary where any user may run it (go
// test's build directory is root's alone).
func copyExecutable(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "etcd-probe-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "probe")
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestNoTCPListener: the member opens no TCP listening socket at all.
func TestNoTCPListener(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded etcd")
	}
	e, err := Start(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	mine := map[string]bool{}
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		if l, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.HasPrefix(l, "socket:[") {
			mine[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) > 9 && f[3] == "0A" && mine[f[9]] {
				t.Errorf("listening TCP socket %s in %s", f[1], table)
			}
		}
	}
}

// TestEveryStartLeavesADiskSnapshot: a member started on a fresh data
// dir takes a disk snapshot at its first apply, so that a restart
// replays its WAL from a snapshot (see Start: without one, the restart's
// first compaction can race an election tick into a raft panic); the
// restarted member has the data and takes a snapshot of its own.
func TestEveryStartLeavesADiskSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded etcd")
	}
	dir := t.TempDir()
	snaps := func() []string {
		m, err := filepath.Glob(filepath.Join(dir, "etcd", "member", "snap", "*.snap"))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	put := func(e *Embedded, k string) {
		t.Helper()
		c, ctx := dialAndPut(t, e, k)
		if r, err := c.Get(ctx, "/first"); err != nil || len(r.Kvs) != 1 {
			t.Fatalf("get /first: %v %v", r, err)
		}
	}
	waitSnaps := func(n int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for len(snaps()) < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d disk snapshots after 10s, want %d", len(snaps()), n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	e, err := Start(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	put(e, "/first")
	waitSnaps(1)
	e.Close()
	e, err = Start(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	put(e, "/second")
	waitSnaps(2)
}

// dialAndPut connects to e and puts key; the client and a 5 s context
// last until the test ends.
func dialAndPut(t *testing.T, e *Embedded, key string) (*clientv3.Client, context.Context) {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: e.Endpoints, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	if _, err := c.Put(ctx, key, "v"); err != nil {
		t.Fatal(err)
	}
	return c, ctx
}
