// Package garbagecollector deletes objects whose owners are gone and
// carries out foreground and orphan deletion, as kube-controller-manager's
// garbage collector does:
//
//   - a dependent all of whose ownerReferences point at objects that no
//     longer exist (checked against the server, UID included) is deleted;
//     owners that are gone are dropped from a dependent that still has a
//     live owner;
//   - an owner being deleted with the foregroundDeletion finalizer gets its
//     dependents deleted (in the foreground those with dependents of their
//     own) and loses the finalizer once no dependent with
//     blockOwnerDeletion remains; a dependent that has another owner not
//     being deleted in the foreground only loses its reference to it, and
//     a circle of blocking references is broken (upstream's
//     attemptToDeleteItem: owners.go);
//   - an owner being deleted with the orphan finalizer has its
//     ownerReference removed from every dependent, then loses the
//     finalizer.
//
// The graph (uid → object, owner uid → dependents) is built from informers
// ("monitors") over every resource discovery reports as
// list/watch/delete-able: the controller manager's shared typed informer
// where one already serves the resource (pods, ReplicaSets, … as
// kube-controller-manager's collector reuses its shared informers;
// shared.go), else a metadata informer of the collector's own. Every ResyncPeriod (30 s, as upstream) discovery
// is asked again: resources that appeared (custom resources) get a monitor,
// those that went lose theirs and their objects leave the graph, and the
// REST mapper used to find owners is replaced. A group that fails discovery
// keeps its monitors; discovery failing as a whole changes nothing (the
// first discovery is tried again every second until it answers). An owner
// of a kind the mapper does not know yet is retried with backoff.
package garbagecollector
