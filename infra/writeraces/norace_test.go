//go:build !race

package writeraces_test

// slowdown stretches the write bound under the race detector (race_test.go);
// without it the bound stands as it is.
const slowdown = 1
