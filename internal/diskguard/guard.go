package diskguard

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// SampleInterval is how often free space is read.
const SampleInterval = 2 * time.Second

// FreeFunc returns the bytes available to unprivileged writers under dir.
type FreeFunc func(dir string) (uint64, error)

// StatFS is the FreeFunc of the real filesystem.
func StatFS(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// Guard watches one directory's free space.
type Guard struct {
	dir   string
	min   uint64
	free  FreeFunc
	clock clock.Clock

	mu  sync.RWMutex
	low string // the refusal message while below min, else ""
}

// New returns a guard refusing writes while dir's filesystem has less
// than min bytes free. It samples once at once.
func New(dir string, min uint64, free FreeFunc, clk clock.Clock) *Guard {
	g := &Guard{dir: dir, min: min, free: free, clock: clk}
	g.sample()
	return g
}

// Run samples every SampleInterval until ctx ends.
func (g *Guard) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-g.clock.After(SampleInterval):
		}
		g.sample()
	}
}

// Low returns the refusal message while free space is below the minimum,
// else "".
func (g *Guard) Low() string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.low
}

func (g *Guard) sample() {
	free, err := g.free(g.dir)
	if err != nil {
		klog.V(2).InfoS("Unable to read free disk space", "dir", g.dir, "err", err)
		return
	}
	msg := ""
	if free < g.min {
		msg = fmt.Sprintf("the data directory %s has %d MiB free, below the %d MiB etcd needs to write safely: writes are refused until space is freed (--data-dir-min-free-mib)",
			g.dir, free>>20, g.min>>20)
	}
	g.mu.Lock()
	was := g.low
	g.low = msg
	g.mu.Unlock()
	switch {
	case was == "" && msg != "":
		klog.Warning("Low disk space: " + msg)
	case was != "" && msg == "":
		klog.InfoS("Disk space is back; writes are accepted again", "dir", g.dir, "freeMiB", free>>20)
	}
}

var writeVerbs = sets.New("create", "update", "patch", "delete", "deletecollection")

// Filter refuses API writes with 503 while space is low; place it after
// the request-info filter (inside the default handler chain).
func (g *Guard) Filter(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, ok := request.RequestInfoFrom(r.Context())
		if msg := g.Low(); msg != "" && ok && info.IsResourceRequest && writeVerbs.Has(info.Verb) {
			err := apierrors.NewServiceUnavailable(msg)
			responsewriters.ErrorNegotiated(err, scheme.Codecs, schema.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}, w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}
