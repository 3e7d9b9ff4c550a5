// Package ipaddress defines the networking.k8s.io/v1 ipaddresses resource:
// one object per allocated Service IP, named after the address.
package ipaddress
