//go:build !linux

package chatredact

import "time"

// threadTime is the clock where no per-thread CPU time is read (the Linux
// version reads the thread's CPU time).
func threadTime() time.Duration { return time.Duration(time.Now().UnixNano()) }
