// Package serviceaccount defines the serviceaccounts resource and its
// token subresource (TokenRequest, as upstream's
// pkg/registry/core/serviceaccount/storage/token.go).
package serviceaccount
