// Package kubectl drives the real kubectl binaries (kubectl.1.27 …
// kubectl.1.33, found beside the one `kubectl` links to) against a started
// `svcplane server` process: discovery, create/get with every output format,
// client- and server-side apply, patches, label/annotate, replace, scale,
// explain, validation errors, chunked lists, watch, delete and version.
//
// Under `go test -short` it starts nothing and every test reports SKIP
// with the reason. Without kubectl on PATH it fails. Waits poll through
// internal/testutil.
package kubectl
