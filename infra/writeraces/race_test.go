//go:build race

package writeraces_test

// slowdown stretches the write bound under the race detector, which slows
// every handler and client several-fold: the bound holds the retries to
// their budget, not the machine to a speed.
const slowdown = 6
