//go:build linux

package chatredact

import (
	"syscall"
	"time"
	"unsafe"
)

// threadTime is the CPU time the calling thread has used
// (CLOCK_THREAD_CPUTIME_ID, to the nanosecond), which time spent waiting for
// a CPU does not add to; the caller locks its goroutine to the thread. It
// falls back on the clock.
func threadTime() time.Duration {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ts.Nano())
}
