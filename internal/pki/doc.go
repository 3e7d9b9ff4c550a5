// Package pki creates and loads the certificates svcplane serves and
// authenticates with: a cluster CA, the API server's serving certificate and
// client certificates (the admin's, nodes', the proxy's). Files are written
// once into the data dir and reused on every later start; a serving
// certificate whose names no longer cover the server's addresses is renewed.
package pki
