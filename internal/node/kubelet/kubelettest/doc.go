// Package kubelettest holds HostStreams, a container.Streams for tests of
// the kubelet API and the API server's pod subresources: it runs commands
// as host processes (os/exec), serves a fixed log and forwards pod ports
// to host addresses. It obeys the contract's rules (unknown pods are
// container.ErrNotFound, a command that is not found exits 127) but
// isolates nothing.
package kubelettest
