// Package iptext reads the text format of iptables-save and
// iptables-restore: tables, chain declarations and rules, with arguments
// split the way the iptables tools split them (double quotes group words).
// It does no I/O and has no dependencies, so both the iptables backend's
// Fake and the proxytest packet tracer can share it.
package iptext
