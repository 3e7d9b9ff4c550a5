// Package manager runs the controllers, as kube-controller-manager does:
// only the server holding the Lease kube-system/svcplane-controller-manager
// runs them (several servers on one etcd never act twice), on shared
// informers from a loopback client; --controllers chooses which ("*" all,
// "name" adds one, "-name" removes one).
package manager
