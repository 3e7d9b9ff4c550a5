// Package endpoints defines the core/v1 endpoints resource.
package endpoints
