package bench

import "golang.org/x/time/rate"

// newPacer lets the creating clients start at most qps creates a second,
// evenly spaced (a token bucket of one: clusterloader2's uniform "qps"
// tuning set); qps 0 lets them go as fast as they can.
func newPacer(qps float64) *rate.Limiter {
	if qps <= 0 {
		return rate.NewLimiter(rate.Inf, 0)
	}
	return rate.NewLimiter(rate.Limit(qps), 1)
}
