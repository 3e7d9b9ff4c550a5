package ipallocator

import (
	"errors"
	"fmt"
)

// Errors with kube-apiserver's wording.
var (
	ErrFull      = errors.New("range is full")
	ErrAllocated = errors.New("provided IP is already allocated")
)

// ErrNotInRange is returned for a requested IP outside every range.
type ErrNotInRange struct {
	IP         string
	ValidRange string
}

func (e *ErrNotInRange) Error() string {
	return fmt.Sprintf("the provided IP (%v) is not in the valid range. The range of valid IPs is %s", e.IP, e.ValidRange)
}
