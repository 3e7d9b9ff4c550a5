// Package versionshare lets the objects the watch cache holds share the
// memory of what they have in common: the versions of one object, and
// siblings (objshare.Group: a ReplicaSet's pods, a namespace's bare pods).
//
// k8s.io/apiserver's watch cache keeps every object decoded, and every
// version of it still in its event history (75 s of events, up to 102,400
// of them). Each version is decoded on its own from etcd's watch, so a pod
// whose status was written twice is held three times, spec, volumes,
// labels and managedFields included: ~6.3 KB of Go structures for a 2.2 KB
// protobuf pod, of which a status write changes a few hundred bytes; and
// the pods of one ReplicaSet hold the same spec, each in its own copy.
//
// Wrap puts itself between the etcd store and the watch cache's reflector
// (only there: requests that bypass the cache, and every write, see the
// store alone). For each object the reflector lists or watches it keeps
// the version it saw last, and objshare.Share makes the new version point
// at the old one's memory wherever the two are equal: equal strings, byte
// slices, maps, slices and pointed-to structures become the same memory.
// An object it sees first shares with the object of its group it saw
// last. What an object holds is unchanged (reflect.DeepEqual to what was
// decoded); only its parts are no longer copies. The watch cache never
// changes the objects it holds (it hands out copies to anything that
// writes), which is what makes this sharing safe.
//
// NewCached builds the watch cache as k8s.io/apiserver's StorageWithCacher
// does, with Wrap under its reflector. WrapGetter puts it in a getter's
// options over the store the server uses: the embedded member's
// in-process one (localetcd) or, for --etcd-servers, generic.NewRawStorage.
package versionshare
