package proxytest

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden rulesets (testdata/scenarios/*) with what the backend produces")

// Golden compares got, what a backend installed for a scenario, with the
// golden file testdata/<name> of the calling test's package; with -update
// it writes got there instead (then review the diff before committing).
func Golden(t testing.TB, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test -run '%s' -update writes it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from what the backend installed (go test -run '%s' -update rewrites it):\n%s",
			file, t.Name(), lineDiff(string(want), got))
	}
}

// lineDiff lists the lines only in want (-) and only in got (+), each in
// its file's order: enough for rulesets, whose lines are mostly unique.
func lineDiff(want, got string) string {
	count := func(s string) map[string]int {
		m := map[string]int{}
		for _, l := range strings.Split(s, "\n") {
			m[l]++
		}
		return m
	}
	inWant, inGot := count(want), count(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if inGot[l] > 0 {
			inGot[l]--
			continue
		}
		b.WriteString("- " + l + "\n")
	}
	inGot = count(got)
	for _, l := range strings.Split(got, "\n") {
		if inWant[l] > 0 {
			inWant[l]--
			continue
		}
		b.WriteString("+ " + l + "\n")
	}
	if b.Len() == 0 {
		return "(the same lines in another order)"
	}
	return b.String()
}
