package etcd

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver"
)

// Embedded is a running single-member etcd.
type Embedded struct {
	etcd      *embed.Etcd
	Endpoints []string
}

// SocketName and PeerSocketName are the unix sockets of the member, in
// the data directory.
const (
	SocketName     = "etcd.sock"
	PeerSocketName = "etcd-peer.sock"
	// LogName is the member's log file in the data directory.
	LogName = "etcd.log"
)

// maxSocketPath is the longest path a unix socket may have (sun_path is
// 108 bytes on Linux, with its terminating NUL).
const maxSocketPath = 107

// Endpoint is the client URL of the embedded member of data dir dir.
func Endpoint(dir string) (string, error) {
	abs, err := filepath.Abs(filepath.Join(dir, SocketName))
	if err != nil {
		return "", err
	}
	return "unix://" + abs, nil
}

// Start runs an etcd member whose data lives in dir/etcd and waits until it
// serves. It never compacts its history itself: the API server's compactor
// does (--etcd-compaction-interval), as kube-apiserver's does to any etcd,
// and records each compaction under compact_rev_key, which is how the
// watch cache learns that continue tokens and snapshots have expired.
func Start(ctx context.Context, dir string) (*Embedded, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(abs, 0o700); err != nil {
		return nil, err
	}
	// A file left by releases that listened on TCP; the ports are gone.
	_ = os.Remove(filepath.Join(abs, "etcd-ports"))
	client, peer := filepath.Join(abs, SocketName), filepath.Join(abs, PeerSocketName)
	for _, p := range []string{client, peer} {
		if len(p) > maxSocketPath {
			return nil, fmt.Errorf("embedded etcd: socket path %s is longer than %d bytes; use a shorter --data-dir", p, maxSocketPath)
		}
		// A socket left by a crash: the data-dir lock says no one uses it.
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	cfg := embed.NewConfig()
	cfg.Name = "svcplane"
	cfg.Dir = filepath.Join(abs, "etcd")
	// etcd's own log (zap JSON, with stack traces on shutdown noise) goes
	// to a file beside its data, not to the server's console.
	cfg.LogLevel = "warn"
	cfg.LogOutputs = []string{filepath.Join(abs, LogName)}
	// The listeners take the socket path from Host (+Path for clients).
	// etcd wants advertised URLs in host:port form; a lone member never
	// dials its peer URL and svcplane never syncs the client URLs from the
	// member list, so the advertised ones only say "unix socket" and name
	// no TCP port.
	cfg.ListenClientUrls = []url.URL{{Scheme: "unix", Path: client}}
	cfg.ListenPeerUrls = []url.URL{{Scheme: "unix", Host: peer}}
	cfg.AdvertiseClientUrls = []url.URL{{Scheme: "unix", Host: "localhost:0"}}
	cfg.AdvertisePeerUrls = []url.URL{{Scheme: "unix", Host: "localhost:0"}}
	cfg.InitialCluster = cfg.Name + "=" + cfg.AdvertisePeerUrls[0].String()
	cfg.ListenMetricsUrls = nil
	// A single member has no peers to wait for: short ticks let it elect
	// itself in ~0.1 s instead of ~0.5-0.9 s with the 100 ms/1 s defaults.
	cfg.TickMs, cfg.ElectionMs = 10, 100
	// A restarted member applies its WAL from its last disk snapshot as
	// one batch and (etcd 3.6) then compacts its in-memory raft log to
	// max(1, applied - SnapshotCatchUpEntries) before raft has taken note
	// of the apply; an election tick in between (10 ms ticks, above) makes
	// raft scan compacted entries and panic ("error scanning unapplied
	// entries [1, 171)", seen once in CI, a restart with no snapshot yet).
	// The compaction cannot reach past the snapshot the member restarted
	// from when one exists and fewer than SnapshotCatchUpEntries (5,000)
	// entries follow it; so the member takes a disk snapshot at its first
	// apply after each start (below). A snapshot every 4,000 entries
	// instead of etcd's 10,000 would close the rest (a restart replaying
	// 5,000-10,000 entries, with its first campaign after their apply) but
	// cost 10-15 % of the server's CPU per pod in `bench nodes` (measured).
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("starting embedded etcd: %w", err)
	}
	for _, p := range []string{client, peer} {
		if err := os.Chmod(p, 0o600); err != nil {
			e.Close()
			return nil, err
		}
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("embedded etcd: %w", err)
	case <-time.After(60 * time.Second):
		e.Close()
		return nil, errors.New("embedded etcd did not become ready within 60s")
	case <-ctx.Done():
		e.Close()
		return nil, ctx.Err()
	}
	// A disk snapshot at the next apply (see the comment above TickMs).
	e.Server.ForceSnapshot()
	return &Embedded{etcd: e, Endpoints: []string{"unix://" + client}}, nil
}

// Server is the running member (for in-process clients).
func (e *Embedded) Server() *etcdserver.EtcdServer { return e.etcd.Server }

// Close stops the member, flushing its data.
func (e *Embedded) Close() {
	e.etcd.Close()
}
