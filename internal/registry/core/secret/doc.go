// Package secret defines the secrets resource.
package secret
