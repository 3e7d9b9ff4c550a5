package exemem

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// mappedKB is the Rss of this test binary's read-only mappings, from
// /proc/self/smaps.
func mappedKB(t *testing.T) int {
	t.Helper()
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	total, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m, err := parseMapsLine(line); err == nil {
			in = m.Path == exe && m.ReadOnly()
			continue
		}
		if f := strings.Fields(line); in && len(f) == 3 && f[0] == "Rss:" {
			kb, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatal(err)
			}
			total += kb
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return total
}

// The release unmaps the binary's pages (the test binary's inits and
// the test framework touched them), and the process runs on: its code
// and data fault back in.
func TestReleaseMapped(t *testing.T) {
	before := mappedKB(t)
	n, err := ReleaseMapped()
	if err != nil {
		t.Fatal(err)
	}
	after := mappedKB(t)
	if n == 0 {
		t.Fatal("released no mapping of the executable")
	}
	if after >= before {
		t.Errorf("resident read-only pages of the executable: %d KB before, %d KB after; want fewer after", before, after)
	}
	t.Logf("released %d KB of mappings: resident %d KB → %d KB", n>>10, before, after)
}
