package netns

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
)

func TestImageName(t *testing.T) {
	for in, want := range map[string]string{
		"registry.k8s.io/e2e-test-images/agnhost:2.53":   "agnhost",
		"registry.k8s.io/pause:3.10":                     "pause",
		"agnhost":                                        "agnhost",
		"localhost:5000/x/busybox@sha256:abc":            "busybox",
		"registry.k8s.io/e2e-test-images/agnhost@sha256": "agnhost",
	} {
		if got := imageName(in); got != want {
			t.Errorf("imageName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResolveDecidesByImageAndCommand(t *testing.T) {
	agn := "registry.k8s.io/e2e-test-images/agnhost:2.53"
	for _, c := range []struct {
		name    string
		spec    corev1.Container
		wantErr string
	}{
		{"pause", corev1.Container{Image: "registry.k8s.io/pause:3.10"}, ""},
		{"agnhost args", corev1.Container{Image: agn, Args: []string{"netexec"}}, ""},
		{"agnhost command", corev1.Container{Image: agn, Command: []string{"/agnhost", "serve-hostname"}}, ""},
		{"host program", corev1.Container{Image: "busybox", Command: []string{"sh", "-c", "true"}}, ""},
		{"default server", corev1.Container{Image: "nginx"}, ""},
		{"no such program", corev1.Container{Image: "busybox", Command: []string{"no-such-program-here"}},
			`exec: "no-such-program-here": executable file not found in $PATH`},
	} {
		prog, err := resolve(c.spec)
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("%s: error %v, want %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil || prog == nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestAgnhostBadInputExitsOneWithCobrasWords(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"nosuch"}, "Error: unknown command \"nosuch\" for \"agnhost\""},
		{[]string{"netexec", "--no-such-flag"}, "Error: unknown flag: --no-such-flag"},
		{[]string{"netexec", "--http-port=abc"}, "Error: invalid argument \"abc\" for \"--http-port\" flag"},
		{[]string{"serve-hostname", "--tcp"}, "Can't server TCP/UDP mode and HTTP mode at the same time"},
		{nil, "a subcommand is required"},
	} {
		var out bytes.Buffer
		io := &procIO{pod: &pod{hostname: "p"}, ctr: &ctr{}, stdout: &out, stderr: &out}
		if code := agnhost(c.args)(context.Background(), io); code != 1 {
			t.Errorf("%v: exit %d, want 1", c.args, code)
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("%v: output %q, want it to contain %q", c.args, out.String(), c.want)
		}
	}
}

func TestRestartPolicy(t *testing.T) {
	for _, c := range []struct {
		policy corev1.RestartPolicy
		code   int32
		want   bool
	}{
		{corev1.RestartPolicyAlways, 0, true}, {corev1.RestartPolicyAlways, 1, true}, {"", 0, true},
		{corev1.RestartPolicyOnFailure, 0, false}, {corev1.RestartPolicyOnFailure, 2, true},
		{corev1.RestartPolicyNever, 0, false}, {corev1.RestartPolicyNever, 137, false},
	} {
		if got := restarts(c.policy, c.code); got != c.want {
			t.Errorf("restarts(%s, %d) = %v, want %v", c.policy, c.code, got, c.want)
		}
	}
}

// TestAgnhostWithoutArgsRunsItsCMD: the agnhost image's CMD is pause, so a
// container of it with neither command nor args pauses (the e2e
// framework's Deployments run it so) rather than failing.
func TestAgnhostWithoutArgsRunsItsCMD(t *testing.T) {
	prog, err := resolve(corev1.Container{Image: "registry.k8s.io/e2e-test-images/agnhost:2.53"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() { done <- prog(ctx, &procIO{pod: &pod{hostname: "p"}, ctr: &ctr{}, stdout: &out, stderr: &out}) }()
	cancel()
	if code := <-done; code != 0 || !strings.Contains(out.String(), "Paused") {
		t.Fatalf("exit %d, output %q: want pause's", code, out.String())
	}
}

// Every agnhost subcommand takes the logging flags of its root command
// (component-base's -v, --vmodule, --log-flush-frequency), as the e2e
// specs pass them (crd-conversion-webhook -v=4).
func TestAgnhostTakesTheLoggingFlags(t *testing.T) {
	for _, args := range [][]string{{"-v=4"}, {"--v", "2"}, {"--vmodule=netexec=3", "--log-flush-frequency=1s"}} {
		fs := pflag.NewFlagSet("sub", pflag.ContinueOnError)
		port := fs.Int("port", 1, "")
		var out bytes.Buffer
		if !parseFlags(fs, append(args, "--port=7"), &out) || *port != 7 {
			t.Errorf("%v: refused (%q) or port %d", args, out.String(), *port)
		}
	}
	fs := pflag.NewFlagSet("sub", pflag.ContinueOnError)
	var out bytes.Buffer
	if parseFlags(fs, []string{"-x"}, &out) || !strings.Contains(out.String(), "unknown shorthand flag: 'x'") {
		t.Errorf("-x accepted or %q", out.String())
	}
}

// entrypoint-tester prints its whole argv as Go prints a slice, the
// image's entrypoint (/agnhost) or the command that overrides it.
func TestEntrypointTesterPrintsItsArgv(t *testing.T) {
	agn := "registry.k8s.io/e2e-test-images/agnhost:2.53"
	for _, c := range []struct {
		spec corev1.Container
		want string
	}{
		{corev1.Container{Image: agn, Args: []string{"entrypoint-tester", "override", "arguments"}}, "[/agnhost entrypoint-tester override arguments]\n"},
		{corev1.Container{Image: agn, Command: []string{"/agnhost-2"}, Args: []string{"entrypoint-tester"}}, "[/agnhost-2 entrypoint-tester]\n"},
		{corev1.Container{Image: agn, Command: []string{"/agnhost-2", "entrypoint-tester", "a"}, Args: []string{"b"}}, "[/agnhost-2 entrypoint-tester a b]\n"},
	} {
		prog, err := resolve(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if code := prog(context.Background(), &procIO{pod: &pod{hostname: "p"}, ctr: &ctr{}, stdout: &out, stderr: &out}); code != 0 || out.String() != c.want {
			t.Errorf("%v %v: exit %d, %q; want %q", c.spec.Command, c.spec.Args, code, out.String(), c.want)
		}
	}
}
