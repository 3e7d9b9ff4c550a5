package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The servers a bench can measure (--against).
const (
	SideSvcplane = "svcplane"
	SideUpstream = "upstream"
	againstBoth  = "both"
)

// UpstreamVersion is the Kubernetes release the upstream side runs (the
// k8s.io/* version svcplane follows).
const UpstreamVersion = "v1.36.3"

// sides turns --against into the sides to measure, in order: svcplane,
// upstream, or both (svcplane first).
func sides(against string) ([]string, error) {
	switch against {
	case "", SideSvcplane:
		return []string{SideSvcplane}, nil
	case SideUpstream:
		return []string{SideUpstream}, nil
	case againstBoth:
		return []string{SideSvcplane, SideUpstream}, nil
	}
	return nil, fmt.Errorf("--against %q: want svcplane, upstream or both", against)
}

// eachSide runs once per side of list, under a "== side ==" heading when
// there are two, and returns the results in order; the first error ends
// it, naming its side.
func eachSide[R any](out io.Writer, list []string, once func(side string) (R, error)) ([]R, error) {
	var results []R
	for _, side := range list {
		if len(list) > 1 {
			fmt.Fprintf(out, "== %s ==\n", side)
		}
		r, err := once(side)
		if err != nil {
			return nil, fmt.Errorf("%s side: %w", side, err)
		}
		results = append(results, r)
	}
	return results, nil
}

// UpstreamConfig locates Kubernetes' own binaries for --against upstream
// or both.
type UpstreamConfig struct {
	// Dir holds kube-apiserver and kube-controller-manager as
	// build-upstream.sh writes them, and etcd as hack/build-etcd.sh does.
	Dir string
	// APIServer, ControllerManager, Scheduler and Etcd override
	// Dir/<name>. ControllerManager "none" runs no controller manager:
	// the bench then sets each Node's podCIDR and makes the default
	// ServiceAccount itself. Scheduler "none" runs no kube-scheduler.
	APIServer, ControllerManager, Scheduler, Etcd string
	// APIServerArgs are extra flags of kube-apiserver.
	APIServerArgs []string
}

// DefaultUpstreamDir is where build-upstream.sh writes the binaries:
// $UPSTREAM_BIN, else $XDG_CACHE_HOME (or ~/.cache)/svcplane-upstream/<version>.
func DefaultUpstreamDir() string {
	if d := os.Getenv("UPSTREAM_BIN"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "svcplane-upstream", UpstreamVersion)
}

// upstreamBinaries are the resolved paths; controllerManager or scheduler
// "" is none.
type upstreamBinaries struct {
	apiserver, controllerManager, scheduler, etcd string
	// note says why there is no controller manager, schedulerNote why
	// there is no scheduler.
	note, schedulerNote string
}

// How the binaries are built, for the errors that find one missing.
const buildEtcdHint = "build it with `bash hack/build-etcd.sh` (the etcd release svcplane embeds, from the Go module cache)"

// buildUpstreamHintFor says how build-upstream.sh builds the named
// Kubernetes binary.
func buildUpstreamHintFor(name string) string {
	return "build it with `bash ../shared/tools/build-upstream.sh " + name + "` (Kubernetes " + UpstreamVersion + " from the Go module cache; it writes " +
		"$UPSTREAM_BIN or ~/.cache/svcplane-upstream/" + UpstreamVersion + ")"
}

// resolve finds the binaries: a path given must be an executable file; a
// missing kube-apiserver or etcd is an error that says how to build it; a
// missing kube-controller-manager (not given) means none.
func (u UpstreamConfig) resolve() (upstreamBinaries, error) {
	dir := u.Dir
	if dir == "" {
		dir = DefaultUpstreamDir()
	}
	var b upstreamBinaries
	var err error
	if b.apiserver, err = findBinary("--kube-apiserver", u.APIServer, dir, "kube-apiserver", buildUpstreamHintFor("kube-apiserver")); err != nil {
		return b, err
	}
	if b.etcd, err = findBinary("--etcd", u.Etcd, dir, "etcd", buildEtcdHint); err != nil {
		return b, err
	}
	if b.controllerManager, b.note, err = optionalBinary("--kube-controller-manager", u.ControllerManager, dir, "kube-controller-manager"); err != nil {
		return b, err
	}
	if b.scheduler, b.schedulerNote, err = optionalBinary("--kube-scheduler", u.Scheduler, dir, "kube-scheduler"); err != nil {
		return b, err
	}
	return b, nil
}

// optionalBinary is given (which must exist), or dir/name when it exists;
// "none" or a missing dir/name is no binary, with a note that says why.
func optionalBinary(flag, given, dir, name string) (path, note string, err error) {
	switch given {
	case "none":
		return "", flag + " none", nil
	case "":
		p := filepath.Join(dir, name)
		if executable(p) == nil {
			return p, "", nil
		}
		return "", "no " + name + " at " + p + " (" + strings.Replace(buildUpstreamHintFor(name), "build it", "build", 1) + ")", nil
	}
	path, err = findBinary(flag, given, dir, name, buildUpstreamHintFor(name))
	return path, "", err
}

// findBinary is given (which must exist) or dir/name.
func findBinary(flag, given, dir, name, hint string) (string, error) {
	if given != "" {
		if err := executable(given); err != nil {
			return "", fmt.Errorf("%s %s: %w", flag, given, err)
		}
		return given, nil
	}
	p := filepath.Join(dir, name)
	if err := executable(p); err != nil {
		return "", fmt.Errorf("no %s at %s (%v): %s, or give %s", name, p, err, hint, flag)
	}
	return p, nil
}

func executable(path string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case st.IsDir():
		return fmt.Errorf("is a directory")
	case st.Mode()&0o111 == 0:
		return fmt.Errorf("not executable")
	}
	return nil
}
