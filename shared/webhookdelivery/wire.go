package webhookdelivery

import (
	"context"
	"net"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/shared/platform"
)

// Handler is the delivery function's Lambda handler: an SQS batch in, the
// messages to hand over again out.
type Handler func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error)

// Wire is the delivery function's one wiring: its main and the local stack
// both build it here, from what every function is built from and the
// queue its retries go to.
func Wire(env platform.Env, queue Queue) Handler {
	return NewDeliverer(env, queue).Handle
}

// NewDeliverer is the Deliverer of env: its store, clock and ids, the
// guarded client (loopback allowed only with env.Config.WebhookLocal).
func NewDeliverer(env platform.Env, queue Queue) Deliverer {
	local := env.Config.WebhookLocal
	return Deliverer{Store: env.Store, Queue: queue, Clock: env.Clock, IDs: env.IDs,
		Client: NewClient(local, net.DefaultResolver), Local: local}
}
