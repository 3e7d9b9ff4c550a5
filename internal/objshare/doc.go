// Package objshare makes decoded API objects share the memory of what
// they hold in common, without changing any value they hold.
//
// A decoded object owns every byte of it: each string, slice, map and
// pointed-to structure is a fresh copy, though most of it is often equal
// to an object already in memory. Two kinds of objects are alike:
//
//   - the versions of one object (a status write changes a few hundred
//     bytes of a pod; k8s.io/apiserver's watch cache holds every version
//     still in its event history: internal/apiserver/versionshare);
//   - siblings: objects of one Group, the same namespace and the same
//     controller (a ReplicaSet's pods, a Job's, a namespace's bare pods),
//     usually made from one template.
//
// Share makes an object point at another's memory wherever the two hold
// equal values. Siblings remembers the last object of each group, weakly
// (it never keeps an object alive), so that the next one shares with it;
// informers use it through informerutil.ShareSiblings, and the watch cache
// through versionshare.
//
// Sharing is safe only among objects nobody writes: an informer's cache
// and the watch cache, whose objects are read and copied, never changed in
// place (client-go's rule for informers; k8s.io/apiserver hands writers
// copies of what its cache holds). A writer that broke that rule would
// change the siblings too.
package objshare
