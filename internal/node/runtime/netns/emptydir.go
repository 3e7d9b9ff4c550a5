package netns

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"
)

// mountpointsDir holds, per bridge, the list of directories a runtime
// made on the host for mount paths (read at the next start after a crash).
const mountpointsDir = "/run/svcplane-netns"

// makeVolumes makes the pod's emptyDir volumes and, on the host, the
// mount paths its containers mount them at.
func (p *pod) makeVolumes() error {
	if err := p.makeEmptyDirs(); err != nil {
		return err
	}
	if len(p.emptyDirs) == 0 || p.r.mounts == nil {
		return nil
	}
	for _, c := range append(append([]corev1.Container(nil), p.spec.Spec.InitContainers...), p.spec.Spec.Containers...) {
		for _, m := range p.emptyDirMounts(&c) {
			dirs, err := p.r.mounts.use(m.target)
			if err != nil {
				return err
			}
			p.mountDirs = append(p.mountDirs, dirs...)
		}
	}
	return nil
}

// makeEmptyDirs makes the pod's emptyDir volumes: a directory each under the
// runtime's, shared by the pod's containers and removed with the pod.
func (p *pod) makeEmptyDirs() error {
	for _, v := range p.spec.Spec.Volumes {
		if v.EmptyDir == nil {
			continue
		}
		dir := filepath.Join(p.r.dir, string(p.spec.UID), "volumes", v.Name)
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return fmt.Errorf("emptyDir volume %q: %w", v.Name, err)
		}
		// As the kubelet makes them: writable by every user.
		if err := os.Chmod(dir, 0o777); err != nil {
			return fmt.Errorf("emptyDir volume %q: %w", v.Name, err)
		}
		if p.emptyDirs == nil {
			p.emptyDirs = map[string]string{}
		}
		p.emptyDirs[v.Name] = dir
	}
	return nil
}

// releaseVolumes removes the pod's emptyDir volumes with their contents
// and the mount paths made for it that no other pod uses.
func (p *pod) releaseVolumes() {
	if p.r.mounts != nil && len(p.mountDirs) > 0 {
		p.r.mounts.release(p.mountDirs)
		p.mountDirs = nil
	}
	if len(p.emptyDirs) > 0 {
		_ = os.RemoveAll(filepath.Join(p.r.dir, string(p.spec.UID)))
	}
}

// emptyDirMount is one emptyDir volume mount of a container: the host
// directory (with its subPath) and where the container sees it.
type emptyDirMount struct {
	source, target string
	readOnly       bool
}

// emptyDirMounts are c's mounts of the pod's emptyDir volumes.
func (p *pod) emptyDirMounts(c *corev1.Container) []emptyDirMount {
	var out []emptyDirMount
	for _, m := range c.VolumeMounts {
		dir, ok := p.emptyDirs[m.Name]
		if !ok || !path.IsAbs(m.MountPath) {
			continue
		}
		src := dir
		if m.SubPath != "" {
			src = filepath.Join(dir, filepath.Clean("/"+m.SubPath))
			_ = os.MkdirAll(src, 0o777)
		}
		out = append(out, emptyDirMount{source: src, target: path.Clean(m.MountPath), readOnly: m.ReadOnly})
	}
	return out
}

// bindEmptyDirs binds c's emptyDir mounts at their paths; it runs in the
// container's own mount namespace (startHost), so only its processes see
// them. A mount path the host lacks is made on the host first (the
// container's filesystem is the host's) and removed when no pod needs it.
func (p *pod) bindEmptyDirs(mounts []emptyDirMount) error {
	for _, m := range mounts {
		if err := unix.Mount(m.source, m.target, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("emptyDir volume at %s: %w", m.target, err)
		}
		if m.readOnly {
			if err := unix.Mount("", m.target, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
				return fmt.Errorf("emptyDir volume at %s read-only: %w", m.target, err)
			}
		}
	}
	return nil
}

// mountpoints are the directories the runtime made on the host for
// containers' mount paths, counted by the pods that use them, and written
// to a file so that a start after a crash removes them.
type mountpoints struct {
	file string

	mu sync.Mutex
	// made are the directories made, with the pods using each.
	made map[string]int
}

func newMountpoints(file string) *mountpoints {
	m := &mountpoints{file: file, made: map[string]int{}}
	m.removeLeftovers()
	return m
}

// removeLeftovers removes the (empty) directories a crashed runtime made.
func (m *mountpoints) removeLeftovers() {
	f, err := os.Open(m.file)
	if err != nil {
		return
	}
	var dirs []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		dirs = append(dirs, s.Text())
	}
	f.Close()
	removeDeepestFirst(dirs)
	_ = os.Remove(m.file)
}

// use makes the missing directories of target and counts one more user
// of each it made (or made before); it returns the ones to release.
func (m *mountpoints) use(target string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var used []string
	for _, dir := range ancestors(target) {
		if _, ours := m.made[dir]; ours {
			m.made[dir]++
			used = append(used, dir)
			continue
		}
		err := os.Mkdir(dir, 0o755)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			m.releaseLocked(used)
			return nil, fmt.Errorf("mount path %s: %w", target, err)
		}
		m.made[dir] = 1
		used = append(used, dir)
	}
	m.save()
	return used, nil
}

// release counts one user less of dirs and removes those no pod uses.
func (m *mountpoints) release(dirs []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.releaseLocked(dirs)
	m.save()
}

func (m *mountpoints) releaseLocked(dirs []string) {
	var gone []string
	for _, d := range dirs {
		if m.made[d]--; m.made[d] <= 0 {
			delete(m.made, d)
			gone = append(gone, d)
		}
	}
	removeDeepestFirst(gone)
}

func (m *mountpoints) save() {
	var b strings.Builder
	for d := range m.made {
		b.WriteString(d + "\n")
	}
	if b.Len() == 0 {
		_ = os.Remove(m.file)
		return
	}
	_ = os.MkdirAll(filepath.Dir(m.file), 0o755)
	_ = os.WriteFile(m.file, []byte(b.String()), 0o644)
}

// ancestors are /a, /a/b, /a/b/c for /a/b/c.
func ancestors(p string) []string {
	var out []string
	for i := 1; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return out
}

// removeDeepestFirst removes the directories that are empty, children
// before their parents.
func removeDeepestFirst(dirs []string) {
	slices.SortFunc(dirs, func(a, b string) int { return len(b) - len(a) })
	for _, d := range dirs {
		_ = unix.Rmdir(d)
	}
}
