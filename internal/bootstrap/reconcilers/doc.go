// Package reconcilers keeps the endpoints of the `kubernetes` Service (the
// Endpoints object and the EndpointSlice, both named kubernetes, in
// default) listing the live API servers, as kube-apiserver's endpoint
// reconcilers do:
//
//   - lease (default): each server refreshes a key with a 15 s TTL under
//     /registry/masterleases/<ip>; the endpoints are the live keys. With no
//     key at all the reconciler refuses to erase the endpoints.
//   - master-count: each server adds itself and trims the list to
//     --apiserver-count.
//   - none: nothing is written.
//
// RemoveEndpoints takes a server out (at start for a stale entry, at
// shutdown for itself); StopReconciling makes later reconciles no-ops.
package reconcilers
