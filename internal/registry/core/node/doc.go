// Package node defines the nodes resource (with /status).
package node
