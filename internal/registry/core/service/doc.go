// Package service defines the services resource (with /status): upstream's
// defaults, validation and table columns. IP and port allocation hook in
// from internal/allocator.
package service
