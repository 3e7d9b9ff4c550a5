package objshare

import (
	"runtime"
	"sync"
	"weak"
)

// Siblings remembers the last object of each Group it was given, without
// keeping it alive: once nothing else holds that object, the garbage
// collector frees it and its group is forgotten.
type Siblings[T any] struct {
	mu   sync.Mutex
	last map[Group]weak.Pointer[T]
}

// NewSiblings returns an empty Siblings.
func NewSiblings[T any]() *Siblings[T] {
	return &Siblings[T]{last: map[Group]weak.Pointer[T]{}}
}

// Share makes obj share memory (Share) with the last object of group g
// that is still alive, and makes obj that group's last. obj must not be
// read or written by anyone else during the call (a freshly decoded
// object); the sibling is only read.
func (s *Siblings[T]) Share(obj *T, g Group) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Under the lock: no other call may take obj as its sibling (and
	// read it) before obj is done.
	if sibling := s.last[g].Value(); sibling != nil && sibling != obj {
		Share(obj, sibling)
	}
	wp := weak.Make(obj)
	s.last[g] = wp
	runtime.AddCleanup(obj, s.forget, last[T]{g, wp})
}

// last is what a cleanup needs to forget a group: its last object, weakly.
type last[T any] struct {
	group Group
	obj   weak.Pointer[T]
}

// forget drops l's group once its last object is freed, unless a newer
// object took its place meanwhile.
func (s *Siblings[T]) forget(l last[T]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last[l.group] == l.obj {
		delete(s.last, l.group)
	}
}

// Groups returns how many groups s remembers.
func (s *Siblings[T]) Groups() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.last)
}
