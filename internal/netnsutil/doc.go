// Package netnsutil runs code inside a network namespace from Go: a
// locked OS thread enters the namespace, runs the function and returns to
// its own namespace (the netns runtime and the traffic bench use it).
package netnsutil
