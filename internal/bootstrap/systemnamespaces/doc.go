// Package systemnamespaces keeps the system namespaces (default,
// kube-system, kube-public, kube-node-lease) in existence: it creates them
// when the server starts and re-creates any that is deleted, checking every
// minute, as kube-apiserver's system-namespaces controller does.
package systemnamespaces
