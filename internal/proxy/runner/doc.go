// Package runner is the proxy's bounded-frequency sync loop: change
// requests coalesce so syncs run at most once per minSyncPeriod, a full
// resync runs at least every syncPeriod, and after a failed sync it retries
// after retryPeriod with a full sync.
//
// Guarantees: the sync function never runs concurrently with itself; a
// Run() request is never lost (a sync starts no later than minSyncPeriod
// after the previous one ended); time comes only from the injected clock.
package runner
