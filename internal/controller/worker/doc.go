// Package worker is the loop every controller shares: a named, rate-limited
// work queue whose keys workers hand to the controller's sync function,
// once the informer caches have synced. An error retries the key with
// backoff; a requested delay retries it after that delay; otherwise the key
// is done until an event enqueues it again.
package worker
