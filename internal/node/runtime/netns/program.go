package netns

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// procIO is what one run of a container sees.
type procIO struct {
	pod    *pod
	ctr    *ctr
	stdout io.Writer
	stderr io.Writer
}

// program is one run of a container: it returns its exit code when it
// exits or, killed, when ctx ends.
type program func(ctx context.Context, io *procIO) int

// imageName is an image reference without registry tag or digest:
// "registry.k8s.io/e2e-test-images/agnhost:2.53" → "agnhost".
func imageName(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
	}
	if i := strings.LastIndex(image, "/"); i >= 0 {
		image = image[i+1:]
	}
	if i := strings.Index(image, ":"); i >= 0 {
		image = image[:i]
	}
	return image
}

// program decides what c runs, as its image would: see the package doc.
func (p *pod) program(c *ctr) (program, error) {
	return resolve(c.spec)
}

func resolve(spec corev1.Container) (program, error) {
	argv := append(append([]string(nil), spec.Command...), spec.Args...)
	switch imageName(spec.Image) {
	case "pause":
		if len(spec.Command) == 0 {
			return pauseProgram, nil
		}
	case "agnhost":
		if len(spec.Command) == 0 {
			if len(spec.Args) == 0 {
				// The image's CMD (ENTRYPOINT /agnhost, CMD pause): the
				// e2e framework's Deployments run it so.
				return agnhost([]string{"pause"}), nil
			}
			return agnhost(spec.Args), nil
		}
		if isAgnhost(spec.Command[0]) {
			return agnhostAs(spec.Command[0], argv[1:]), nil
		}
	}
	if len(spec.Command) == 0 {
		return defaultServer, nil
	}
	path, err := lookProgram(spec.Command[0])
	if err != nil {
		return nil, fmt.Errorf("exec: %q: executable file not found in $PATH", spec.Command[0])
	}
	return hostProgram(path, argv), nil
}

// isAgnhost reports whether a command names the agnhost image's binary
// (/agnhost, or its copy /agnhost-2 that entrypoint tests run).
func isAgnhost(cmd string) bool {
	return cmd == "/agnhost" || cmd == "agnhost" || cmd == "/agnhost-2"
}

// pauseProgram holds the namespace until killed (exit 0 at SIGTERM, as
// the pause binary).
func pauseProgram(ctx context.Context, _ *procIO) int {
	<-ctx.Done()
	return 0
}

// lookProgram finds a container command's program on the host. sh is the
// host's bash in POSIX mode (run as "sh") where there is one: Debian's sh
// (dash) drops environment variables whose names are no shell identifiers
// (envFrom keys such as "data-1"), which the kubelet sets and images'
// shells pass on to the programs they run.
func lookProgram(name string) (string, error) {
	if name == "sh" || name == "/bin/sh" {
		if bash, err := exec.LookPath("bash"); err == nil {
			return bash, nil
		}
	}
	return exec.LookPath(name)
}
