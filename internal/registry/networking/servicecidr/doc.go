// Package servicecidr defines the networking.k8s.io/v1 servicecidrs
// resource (with /status).
package servicecidr
