// Package bitmap is an allocation map over the offsets [0, size) with
// kube-apiserver's band strategy: a lower "static" band that dynamic picks
// use only when the upper band is full, so users can request values from
// it with little risk of collision. Pure data; the caller persists and
// synchronises it.
package bitmap
