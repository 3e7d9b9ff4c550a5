// Package exemem limits how much of the svcplane executable a process
// keeps mapped.
//
// svcplane is one binary (API server, controllers, etcd, node agent,
// proxy; ~135 MB) and every process runs the package inits of all of it
// before main: ~650 inits spread over the whole text, rodata and pclntab.
// A page fault on a file mapping maps not one page but what the page
// cache holds around it: the 64 KB fault-around window and, on kernels
// with large page-cache folios (ext4 on 6.x), the whole folio. So after
// the inits ~50 MB of the binary are mapped in a process that then runs
// only the proxy (measured on 6.18: `svcplane proxy` blocked reading its
// --config, RssFile 52 MB).
//
// MADV_RANDOM does not help once the binary is in the page cache (it is:
// the same binary runs the server, or was just written there): it stops
// read-ahead, not the mapping of cached neighbours (measured: one touch
// every 256 KB of a cached 135 MB file maps 76 KB per touch with and
// without it; 4 KB per touch only when the file was not cached).
// ReleaseMapped instead unmaps the binary's read-only mappings once the
// process knows what it runs (RssFile 52 → 5 MB at that point); what the
// process uses again faults back in from the page cache, without I/O,
// folio by folio. `svcplane proxy` calls it twice: at the start of the
// subcommand, and once every family's first sync is done, when what the
// start touched (config parsing, the client, the informer lists, the
// first full sync's planning) is no longer needed: at 5,000 Services × 10
// endpoints the proxy's RssFile after the bench's syncs fell from ~40 to
// 27–35 MB (docs/architecture.md, "Proxy memory").
//
// The parsing of /proc/self/maps (maps.go) is pure; the madvise call
// (release_linux.go) is the only I/O.
package exemem
