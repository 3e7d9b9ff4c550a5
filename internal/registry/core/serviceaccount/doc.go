// Package serviceaccount defines the serviceaccounts resource.
package serviceaccount
