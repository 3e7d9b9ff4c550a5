// Package datadir guards a svcplane data directory: one process at a time
// may use it. Lock takes an exclusive, non-blocking flock on <dir>/lock and
// records the holder's PID there, so a second `svcplane up` or `server` on
// the same directory refuses at once with a message naming the holder,
// instead of blocking on etcd's database lock. The kernel drops the lock
// when the holder exits, even by kill -9, so a crash never leaves the
// directory locked.
package datadir
