// Package exemem limits how much of the svcplane executable a process
// keeps mapped.
//
// svcplane is one binary (API server, controllers, etcd, node agent,
// proxy, ~135 MB) and every process runs the package inits of all of it
// before main: ~650 inits spread over the whole text, read-only data and
// pclntab. Each page fault on a file mapping maps the 64 KB or more
// around it (the kernel's fault-around and large page-cache folios;
// MADV_RANDOM does not stop either on 6.x kernels, measured: one touch
// per 256 KB of the binary maps 76 KB per touch with and without it), so
// the inits alone leave ~50 MB of the binary resident in a process that
// then runs only the proxy. ReleaseMapped unmaps those pages once the
// process knows what it runs; what it still uses faults back in from the
// page cache (no I/O).
//
// The parsing of /proc/self/maps (maps.go) is pure; the madvise call
// (release_linux.go) is the only I/O.
package exemem
