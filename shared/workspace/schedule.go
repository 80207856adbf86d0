package workspace

// ResumeRun is what one scheduler run did for the UTC day it ran for
// (docs/credit-rules.md#the-scheduler).
type ResumeRun struct {
	// ResumedAgents and ResumedTeams count what this run resumed (agents
	// resumed only underneath, disabled or held again, are not counted).
	ResumedAgents, ResumedTeams int
	// Finished reports that every resume due on the run's day is done, by
	// this run or an earlier one: the later runs of the day only look.
	Finished bool
	// Busy reports that another run of the day was going on (it holds the
	// day's lease): this one did nothing.
	Busy bool
}
