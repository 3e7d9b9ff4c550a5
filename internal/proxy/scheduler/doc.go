// Package scheduler implements IPVS's schedulers in Go: rr, wrr, lc, wlc,
// lblc, lblcr, sh, dh, sed, nq and mh, with the kernel's selection rules
// (weights, active-connection overheads, the hash tables of sh, dh and
// mh). The userspace proxy picks endpoints with them; the ipvs backend
// validates its configured scheduler name against Names.
//
// Guarantees: a Scheduler never picks a backend with weight 0 or one the
// caller's skip function rejects; Pick is safe for concurrent use; the
// hashing schedulers map a key to the same backend while the backend set
// is unchanged, and mh moves few keys when it changes. Time-dependent
// state (lblcr's set expiry) reads an injected clock.
package scheduler
