package bitmap

// IPStaticBand is the size of the static band of a ClusterIP range of size
// offsets: min(max(16, size/16), 256), as kube-apiserver.
func IPStaticBand(size uint64) uint64 {
	return min(max(16, size/16), 256, size)
}

// PortStaticBand is the size of the static band of a NodePort range:
// min(max(16, size/32), 128).
func PortStaticBand(size uint64) uint64 {
	return min(max(16, size/32), 128, size)
}
