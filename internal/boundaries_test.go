// Package internal_test holds the test of the import boundaries between
// svcplane's packages (the directory has no package of its own).
package internal_test

import (
	"os/exec"
	"strings"
	"testing"
)

// boundaries are the import rules of docs/architecture.md: the packages
// matched by from (go list patterns, relative to internal/) must not
// depend, directly or not, on a package whose path starts with one of
// banned (module-relative paths start with "/internal/").
var boundaries = []struct {
	why    string
	from   []string
	banned []string
}{
	{"the API server starts no controller (internal/plane composes them)",
		[]string{"./apiserver/..."}, []string{"/internal/controller/", "/internal/plane", "/internal/node/", "/internal/proxy"}},
	{"proxy backends plan from the proxy's slim types, not the API types",
		[]string{"./proxy/nftables/...", "./proxy/iptables/...", "./proxy/ipvs/...", "./proxy/userspace/..."}, []string{"k8s.io/api/"}},
	{"controllers use client-go against the API, never its storage",
		[]string{"./controller/..."}, []string{"/internal/registry", "/internal/apiserver", "/internal/plane"}},
	{"the node agent is a client of the API",
		[]string{"./node/..."}, []string{"/internal/apiserver", "/internal/registry", "/internal/plane"}},
}

func TestImportBoundaries(t *testing.T) {
	mod, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		t.Skipf("go list -m: %v", err) // no go tool: nothing to check with
	}
	module := strings.TrimSpace(string(mod))
	for _, b := range boundaries {
		args := append([]string{"list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}"}, b.from...)
		out, err := exec.Command("go", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) == 0 || lines[0] == "" {
			t.Errorf("%v matches no package", b.from)
		}
		for _, line := range lines {
			fields := strings.Fields(line)
			for _, dep := range fields[1:] {
				for _, ban := range b.banned {
					if strings.HasPrefix(ban, "/") {
						ban = module + ban
					}
					if strings.HasPrefix(dep, ban) {
						t.Errorf("%s depends on %s: %s", fields[0], dep, b.why)
					}
				}
			}
		}
	}
}
