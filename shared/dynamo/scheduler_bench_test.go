package dynamo_test

import (
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time this process has used (user and system): the
// client side of the calls, not DynamoDB Local's (another process).
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkResumeDue runs the scheduler over 200 agents of 20 workspaces,
// all stopped by their daily limit: resumes/s is DynamoDB Local's pace on
// this machine (not AWS's); the round trips and the client's CPU time per
// resume carry over (docs/benchmarks.md#scheduler-at-scale).
func BenchmarkResumeDue(b *testing.B) {
	perWorkspace := make([]int, 20)
	for i := range perWorkspace {
		perWorkspace[i] = 10
	}
	resumed, cpu, trips := 0, time.Duration(0), 0
	var elapsed time.Duration
	for b.Loop() {
		b.StopTimer()
		w := newStoppedWorld(b, perWorkspace)
		runtime.GC() // the setup's garbage is not the run's
		b.StartTimer()
		start, cpu0 := time.Now(), cpuTime(b)
		run, err := w.run(context.Background(), w.store)
		if err != nil || run.ResumedAgents != 200 {
			b.Fatalf("run: %+v, %v", run, err)
		}
		elapsed += time.Since(start)
		cpu += cpuTime(b) - cpu0
		resumed += run.ResumedAgents
		trips += w.rt.Count()
	}
	b.ReportMetric(float64(resumed)/elapsed.Seconds(), "resumes/s")
	b.ReportMetric(float64(trips)/float64(resumed), "roundtrips/resume")
	b.ReportMetric(float64(cpu.Microseconds())/float64(resumed), "cpu-µs/resume")
}
