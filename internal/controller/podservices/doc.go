// Package podservices maps a pod to the Services whose selector matches
// it, for the controllers that keep a Service's endpoints (Endpoints,
// EndpointSlices).
package podservices
