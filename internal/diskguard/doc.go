// Package diskguard keeps the embedded etcd off a full disk. A Guard
// samples the free space of the data directory's filesystem on an
// injected clock; while it is below the minimum, its HTTP filter refuses
// API writes (create, update, patch, delete, deletecollection) with 503
// and a message naming the directory and the figures, and reads go on.
// When space returns, writes resume at the next sample (every 2 s): no
// restart. etcd panics when a write hits ENOSPC (and would take a
// `svcplane up` process with it); the minimum leaves room for its own
// writes, a new 64 MB WAL segment included.
package diskguard
