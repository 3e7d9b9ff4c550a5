// Package event defines the core/v1 events resource (kept for one hour).
package event
