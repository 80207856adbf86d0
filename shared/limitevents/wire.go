package limitevents

import (
	"context"
	"encoding/json"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"

	"github.com/agentplatform/workspaceapi/shared/platform"
	"github.com/agentplatform/workspaceapi/shared/webhookdelivery"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Wire is the function's one wiring: its main and the local stack both build
// its handler here, from what every function is built from and the bus
// (EventBridge in AWS, a Recorder where it cannot run: FromConfig).
// Each published event is then fanned out to the workspace's webhook
// subscriptions onto queue (webhookdelivery.FanOut).
func Wire(env platform.Env, bus Bus, queue webhookdelivery.Queue) Handler {
	return NewWithWebhooks(bus, env.Config.EventBusName, func(ctx context.Context, ev workspace.LimitEvent, detail json.RawMessage) error {
		return webhookdelivery.FanOut(ctx, env.Store, queue, ev, detail)
	})
}

// FromConfig returns the bus of the events function: EventBridge, or,
// without a bus name (sam local), a Recorder that logs.
func FromConfig(cfg aws.Config, busName string) Bus {
	if busName == "" {
		return &Recorder{}
	}
	return eventbridge.NewFromConfig(cfg)
}
