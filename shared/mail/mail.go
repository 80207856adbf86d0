// Package mail sends the service's e-mail: through Amazon SES v2 in AWS, and
// through a Recorder that keeps and logs each message where SES cannot run.
package mail

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"
)

// Message is one e-mail.
type Message struct {
	To      string
	Subject string
	Text    string
}

// SESAPI is the part of the SES v2 client the sender uses.
type SESAPI interface {
	SendEmail(ctx context.Context, in *sesv2.SendEmailInput, optFns ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error)
}

// SES sends messages with Amazon SES v2 from a verified sender address.
type SES struct {
	Client SESAPI
	From   string
}

// Send sends m; it returns SES's error when the message was not accepted.
func (s SES) Send(ctx context.Context, m Message) error {
	_, err := s.Client.SendEmail(ctx, &sesv2.SendEmailInput{
		FromEmailAddress: aws.String(s.From),
		Destination:      &types.Destination{ToAddresses: []string{m.To}},
		Content: &types.EmailContent{Simple: &types.Message{
			Subject: &types.Content{Data: aws.String(m.Subject), Charset: aws.String("UTF-8")},
			Body:    &types.Body{Text: &types.Content{Data: aws.String(m.Text), Charset: aws.String("UTF-8")}},
		}},
	})
	if err != nil {
		return fmt.Errorf("send e-mail with SES: %w", err)
	}
	return nil
}

// Sender sends one message.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// FromConfig returns the invitation mailer of a function: SES from the
// sender from, or, without one (sam local, tests), a Recorder that logs.
func FromConfig(cfg aws.Config, from string) Sender {
	if from == "" {
		return &Recorder{}
	}
	return SES{Client: sesv2.NewFromConfig(cfg), From: from}
}

// MaxRecorded is how many messages a Recorder keeps: the newest ones. A
// runner left going for days must not grow without bound.
const MaxRecorded = 1000

// Recorder stands in for SES where it cannot run (the local runner, tests):
// it keeps the last MaxRecorded messages and logs every one. Its zero value
// is ready to use.
type Recorder struct {
	Logger *slog.Logger // nil: slog.Default()
	// Fail, when set, makes Send fail with it (tests of the failure path).
	Fail error

	mu   sync.Mutex
	sent []Message
}

// Send records m and logs it; it returns r.Fail when that is set.
func (r *Recorder) Send(ctx context.Context, m Message) error {
	if r.Fail != nil {
		return r.Fail
	}
	r.mu.Lock()
	if len(r.sent) == MaxRecorded {
		// Shift rather than reslice, so the dropped messages are freed.
		copy(r.sent, r.sent[1:])
		r.sent = r.sent[:MaxRecorded-1]
	}
	r.sent = append(r.sent, m)
	r.mu.Unlock()
	logger := r.Logger
	if logger == nil {
		logger = slog.Default()
	}
	logger.InfoContext(ctx, "e-mail recorded (not sent)", "to", m.To, "subject", m.Subject, "text", m.Text)
	return nil
}

// Sent returns the messages kept (the last MaxRecorded), oldest first.
func (r *Recorder) Sent() []Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Message(nil), r.sent...)
}
