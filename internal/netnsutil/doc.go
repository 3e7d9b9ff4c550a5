// Package netnsutil makes network namespaces and runs code inside them
// from Go: a locked OS thread enters the namespace, runs the function and
// returns to its own namespace (the netns runtime and the traffic bench
// use it).
package netnsutil
