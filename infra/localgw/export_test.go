package localgw

import "time"

// SetIntegrationTimeout shortens API Gateway's 29 s wait, so a test of it
// takes milliseconds.
func SetIntegrationTimeout(g *Gateway, d time.Duration) { g.limits.integrationTimeout = d }

// SetResponseLimits lowers API Gateway's response limit and Lambda's, so a
// test can reach the gateway's (which Lambda's 6 MB otherwise hides).
func SetResponseLimits(g *Gateway, gateway, lambda int) {
	g.limits.response, g.limits.invokeResponse = gateway, lambda
	for _, f := range g.functions {
		f.maxResponse = lambda
	}
}
