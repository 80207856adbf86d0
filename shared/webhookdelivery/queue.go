// Package webhookdelivery delivers limit events to the workspaces' webhook
// subscriptions (docs/webhooks.md): the events function fans each event out
// as one Message per matching subscription onto the delivery queue
// (FanOut); the delivery function POSTs each, signed, through a transport
// that connects only to public addresses (Deliverer), logs every attempt,
// and retries a failure with back-off until workspace.RetryDelays are spent,
// then disables the subscription.
package webhookdelivery

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Message is one event to deliver to one subscription, as the delivery
// queue carries it. Attempt counts the attempts made before this one.
type Message struct {
	WorkspaceID string          `json:"workspaceId"`
	WebhookID   string          `json:"webhookId"`
	EventID     string          `json:"eventId"`
	EventType   string          `json:"eventType"`
	Timestamp   string          `json:"timestamp"`
	Data        json.RawMessage `json:"data"`
	Attempt     int             `json:"attempt"`
	// NotBefore is when the next attempt is due (RFC 3339; empty: now). A
	// message taken earlier goes back on the queue for the rest of the
	// wait, at most MaxDelay per hop.
	NotBefore string `json:"notBefore,omitempty"`
}

// Queue takes messages for the delivery function, each visible after delay.
type Queue interface {
	Enqueue(ctx context.Context, m Message, delay time.Duration) error
}

// SQSAPI is the part of the SQS client the queue uses.
type SQSAPI interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
}

// MaxDelay is the longest delay SQS gives one message (15 minutes); longer
// waits are made of hops (Handler).
const MaxDelay = 15 * time.Minute

// SQSQueue is the delivery queue in AWS.
type SQSQueue struct {
	Client SQSAPI
	URL    string
}

// Enqueue sends m with DelaySeconds min(delay, MaxDelay).
func (q SQSQueue) Enqueue(ctx context.Context, m Message, delay time.Duration) error {
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode webhook delivery: %w", err)
	}
	secs := int32(min(delay, MaxDelay) / time.Second)
	_, err = q.Client.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl: aws.String(q.URL), MessageBody: aws.String(string(body)), DelaySeconds: secs,
	})
	if err != nil {
		return fmt.Errorf("enqueue webhook delivery %s attempt %s: %w", m.EventID, strconv.Itoa(m.Attempt), err)
	}
	return nil
}

// QueueFromConfig is the delivery queue of a function in Lambda: SQS at
// url.
func QueueFromConfig(cfg aws.Config, url string) Queue {
	return SQSQueue{Client: sqs.NewFromConfig(cfg), URL: url}
}

// MemoryQueue keeps what is sent to it, in order: the local stack's queue
// when nothing drives the delivery function, and the tests'.
type MemoryQueue struct {
	mu   sync.Mutex
	sent []Queued
}

// Queued is one message a MemoryQueue took, with its delay.
type Queued struct {
	Message Message
	Delay   time.Duration
}

// Enqueue keeps m.
func (q *MemoryQueue) Enqueue(_ context.Context, m Message, delay time.Duration) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sent = append(q.sent, Queued{Message: m, Delay: delay})
	return nil
}

// Sent returns what was sent so far.
func (q *MemoryQueue) Sent() []Queued {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.sent)
}
