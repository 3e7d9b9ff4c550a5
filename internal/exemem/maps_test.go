package exemem

import (
	"reflect"
	"strings"
	"testing"
)

const sampleMaps = `00400000-02c9e000 r-xp 00000000 fd:00 1234 /usr/bin/svcplane
02c9e000-0519c000 r--p 0289e000 fd:00 1234 /usr/bin/svcplane
0519c000-05260000 rw-p 04d9c000 fd:00 1234 /usr/bin/svcplane
05260000-052c0000 rw-p 00000000 00:00 0
c000000000-c004000000 rw-p 00000000 00:00 0
7f0000000000-7f0000028000 r--p 00000000 fd:00 99 /usr/lib/x86_64-linux-gnu/libc.so.6
7f0000028000-7f00001bd000 r-xp 00028000 fd:00 99 /usr/lib/x86_64-linux-gnu/libc.so.6
7f1000000000-7f1000001000 r--p 00000000 fd:00 77 /tmp/a dir/svcplane
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]
`

func TestExecutableReadOnly(t *testing.T) {
	maps, err := ParseMaps(strings.NewReader(sampleMaps))
	if err != nil {
		t.Fatal(err)
	}
	if len(maps) != 9 {
		t.Fatalf("parsed %d mappings, want 9", len(maps))
	}
	for _, tc := range []struct {
		exe  string
		want []Mapping
	}{
		{"/usr/bin/svcplane", []Mapping{
			{Start: 0x400000, End: 0x2c9e000, Perms: "r-xp", Path: "/usr/bin/svcplane"},
			{Start: 0x2c9e000, End: 0x519c000, Perms: "r--p", Path: "/usr/bin/svcplane"},
		}},
		// A path with a space is one path.
		{"/tmp/a dir/svcplane", []Mapping{{Start: 0x7f1000000000, End: 0x7f1000001000, Perms: "r--p", Path: "/tmp/a dir/svcplane"}}},
		{"/usr/bin/other", nil},
	} {
		if got := ExecutableReadOnly(maps, tc.exe); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ExecutableReadOnly(%q) = %+v, want %+v", tc.exe, got, tc.want)
		}
	}
}

func TestParseMapsErrors(t *testing.T) {
	for _, line := range []string{
		"00400000 r-xp 00000000 fd:00 1234 /x",
		"zz-02 r-xp 00000000 fd:00 1234 /x",
		"02-zz r-xp 00000000 fd:00 1234 /x",
		"02-01 r-xp 00000000 fd:00 1234 /x",
		"00400000-02c9e000 r-xp",
	} {
		if _, err := ParseMaps(strings.NewReader(line + "\n")); err == nil {
			t.Errorf("ParseMaps(%q) accepted it", line)
		}
	}
}

func TestReadOnly(t *testing.T) {
	for perms, want := range map[string]bool{"r-xp": true, "r--p": true, "r--s": true, "rw-p": false, "rwxp": false, "---p": false, "": false} {
		if got := (Mapping{Perms: perms}).ReadOnly(); got != want {
			t.Errorf("ReadOnly(%q) = %v, want %v", perms, got, want)
		}
	}
}
