package exemem

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ReleaseMapped drops the pages of the running executable's read-only
// mappings (text, rodata, pclntab) from the process's page tables
// (MADV_DONTNEED) and returns how many bytes of mappings it covered. The
// pages stay in the page cache and fault back in, without I/O, when the
// process touches them again. Only read-only file mappings are released:
// their pages are the file's, so nothing is lost (writable mappings hold
// the process's data and are never touched). Call it once the process
// knows it runs a small part of the binary, e.g. at the start of a
// subcommand.
func ReleaseMapped() (int64, error) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0, err
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0, err
	}
	maps, err := ParseMaps(f)
	f.Close()
	if err != nil {
		return 0, err
	}
	var n int64
	for _, m := range ExecutableReadOnly(maps, exe) {
		if err := madvise(m.Start, m.End-m.Start, unix.MADV_DONTNEED); err != nil {
			return n, fmt.Errorf("madvise %x-%x %s: %w", m.Start, m.End, m.Perms, err)
		}
		n += int64(m.End - m.Start)
	}
	return n, nil
}

// madvise advises [addr, addr+length): the range is a mapping of the
// executable, not Go memory, so it goes by address rather than by slice.
func madvise(addr, length uint64, advice int) error {
	_, _, e := unix.Syscall(unix.SYS_MADVISE, uintptr(addr), uintptr(length), uintptr(advice))
	if e != 0 {
		return e
	}
	return nil
}
