package exemem

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Mapping is one line of /proc/<pid>/maps.
type Mapping struct {
	Start, End uint64
	// Perms is the permission field, e.g. "r-xp".
	Perms string
	Path  string
}

// ReadOnly reports whether the mapping can be neither written nor is
// anonymous: its pages are the file's, and dropping or not prefetching
// them loses nothing.
func (m Mapping) ReadOnly() bool {
	return len(m.Perms) == 4 && m.Perms[0] == 'r' && m.Perms[1] == '-'
}

// ParseMaps reads the mappings of a /proc/<pid>/maps file.
func ParseMaps(r io.Reader) ([]Mapping, error) {
	var out []Mapping
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		m, err := parseMapsLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("maps line %d: %w", n, err)
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

// parseMapsLine parses "start-end perms offset dev inode [path]".
func parseMapsLine(line string) (Mapping, error) {
	f := strings.Fields(line)
	if len(f) < 5 {
		return Mapping{}, fmt.Errorf("%q: want at least 5 fields", line)
	}
	lo, hi, ok := strings.Cut(f[0], "-")
	if !ok {
		return Mapping{}, fmt.Errorf("%q: address range %q has no '-'", line, f[0])
	}
	start, err := strconv.ParseUint(lo, 16, 64)
	if err != nil {
		return Mapping{}, fmt.Errorf("%q: start: %w", line, err)
	}
	end, err := strconv.ParseUint(hi, 16, 64)
	if err != nil {
		return Mapping{}, fmt.Errorf("%q: end: %w", line, err)
	}
	if end <= start {
		return Mapping{}, fmt.Errorf("%q: empty range", line)
	}
	m := Mapping{Start: start, End: end, Perms: f[1]}
	if len(f) >= 6 {
		// A path may hold spaces; it is everything after the inode.
		m.Path = strings.Join(f[5:], " ")
	}
	return m, nil
}

// ExecutableReadOnly is the read-only mappings of the file at exe (text,
// rodata, pclntab): the ones AdviseRandom advises.
func ExecutableReadOnly(maps []Mapping, exe string) []Mapping {
	var out []Mapping
	for _, m := range maps {
		if m.Path == exe && m.ReadOnly() {
			out = append(out, m)
		}
	}
	return out
}
