// Package kubeconfig writes kubeconfig files with embedded credentials, so a
// file copied elsewhere still works.
package kubeconfig
