// Package requestid makes request ids of the form AWS gives them: random
// (version 4) UUIDs, as API Gateway's and Lambda's request ids are. The local
// gateway and the Lambda emulator both hand them out; it is a leaf, so that
// neither links the other for it.
package requestid

import (
	"crypto/rand"
	"fmt"
)

// New returns a random UUID, such as 1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b.
func New() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
