// Package idlemem hands a quiet process's unused heap back to the OS.
//
// The Go runtime keeps the heap it has grown to: after a burst of work
// (a round of kubectl commands, a controller's resync) the spans that
// held its garbage stay resident until the background scavenger slowly
// returns what lies above the heap goal, so an idle API server shows
// the burst's high-water mark in its RSS for minutes (at GOGC=50: live
// heap × 1.5 and more). Releaser watches the process's allocation rate
// and, once an interval passes with little allocated while much more
// heap is resident than the last collection found live, runs one
// debug.FreeOSMemory: a collection and the return of every free page.
// Under load it never fires (the allocation rate is high, and the
// collector runs anyway); when quiet it fires once per burst, because
// right after a release resident and live are close.
package idlemem
