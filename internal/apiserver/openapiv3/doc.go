// Package openapiv3 serves a server's /openapi/v3 from the JSON of its
// documents alone.
//
// k8s.io/apiserver's PrepareRun builds every built-in group version's
// OpenAPI v3 document (routes.OpenAPI InstallV3) and hands the objects to
// kube-openapi's handler3, which keeps them for as long as the server
// runs, beside their JSON (the discovery document needs every group's
// hash, so the JSON of all of them is made at start): ~16 MB of live heap
// in svcplane's server, most of it objects that are never read again.
//
// Service builds the documents the same way, with InstallV3 into a mux of
// its own, once, keeps each group version's JSON (gzip-compressed) and
// ETag, and lets the objects go. It answers as handler3 does (the same
// bytes, ETags, hash redirects, content negotiation and caching headers;
// service_test.go compares the two on the same routes). Group versions
// added while the server runs (apiextensions' CRD controller) go to a
// handler3 of their own (Service.Dynamic), whose entries the discovery
// document merges with the built-in ones.
package openapiv3
