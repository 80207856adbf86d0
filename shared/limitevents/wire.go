package limitevents

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"

	"github.com/agentplatform/workspaceapi/shared/platform"
)

// Wire is the function's one wiring: its main and the local stack both build
// its handler here, from what every function is built from and the bus
// (EventBridge in AWS, a Recorder where it cannot run: FromConfig).
func Wire(env platform.Env, bus Bus) Handler { return New(bus, env.Config.EventBusName) }

// FromConfig returns the bus of the events function: EventBridge, or,
// without a bus name (sam local), a Recorder that logs.
func FromConfig(cfg aws.Config, busName string) Bus {
	if busName == "" {
		return &Recorder{}
	}
	return eventbridge.NewFromConfig(cfg)
}
