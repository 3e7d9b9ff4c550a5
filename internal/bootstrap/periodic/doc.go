// Package periodic runs a bootstrap controller's sync on a ticker from an
// injected clock, so tests step the clock instead of sleeping.
package periodic
