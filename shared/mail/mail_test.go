package mail_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"

	"github.com/agentplatform/workspaceapi/shared/mail"
)

// sesStub records the request SES would get.
type sesStub struct {
	got *sesv2.SendEmailInput
	err error
}

func (s *sesStub) SendEmail(_ context.Context, in *sesv2.SendEmailInput, _ ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error) {
	s.got = in
	return &sesv2.SendEmailOutput{MessageId: aws.String("m-1")}, s.err
}

func TestSESSendsOneSimpleMessageFromTheSender(t *testing.T) {
	stub := &sesStub{}
	err := mail.SES{Client: stub, From: "no-reply@acme.example"}.Send(t.Context(),
		mail.Message{To: "ann@acme.example", Subject: "Join", Text: "Hello"})
	if err != nil {
		t.Fatal(err)
	}
	in := stub.got
	if got := aws.ToString(in.FromEmailAddress); got != "no-reply@acme.example" {
		t.Errorf("from = %q", got)
	}
	if to := in.Destination.ToAddresses; len(to) != 1 || to[0] != "ann@acme.example" {
		t.Errorf("to = %v, want [ann@acme.example]", to)
	}
	if s := in.Content.Simple; aws.ToString(s.Subject.Data) != "Join" || aws.ToString(s.Body.Text.Data) != "Hello" {
		t.Errorf("content = %q / %q", aws.ToString(s.Subject.Data), aws.ToString(s.Body.Text.Data))
	}
}

func TestSESErrorIsReturned(t *testing.T) {
	stub := &sesStub{err: errors.New("MessageRejected")}
	if err := (mail.SES{Client: stub, From: "a@b.example"}).Send(t.Context(), mail.Message{To: "c@d.example"}); err == nil {
		t.Error("Send = nil, want the SES error")
	}
}

func TestRecorderKeepsEveryMessage(t *testing.T) {
	var r mail.Recorder
	for _, to := range []string{"a@x.example", "b@x.example"} {
		if err := r.Send(t.Context(), mail.Message{To: to}); err != nil {
			t.Fatal(err)
		}
	}
	if sent := r.Sent(); len(sent) != 2 || sent[0].To != "a@x.example" || sent[1].To != "b@x.example" {
		t.Errorf("sent = %+v, want both messages in order", sent)
	}
}

func TestRecorderKeepsOnlyTheLastMaxRecordedMessages(t *testing.T) {
	tests := []struct {
		name               string
		send               int
		wantLen            int
		wantFirst, wantEnd string
	}{
		{"below the bound keeps all", 3, 3, "0@x.example", "2@x.example"},
		{"at the bound keeps all", mail.MaxRecorded, mail.MaxRecorded, "0@x.example", fmt.Sprintf("%d@x.example", mail.MaxRecorded-1)},
		{"past the bound drops the oldest", mail.MaxRecorded + 5, mail.MaxRecorded, "5@x.example", fmt.Sprintf("%d@x.example", mail.MaxRecorded+4)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mail.Recorder{Logger: slog.New(slog.DiscardHandler)}
			for i := range tc.send {
				if err := r.Send(t.Context(), mail.Message{To: fmt.Sprintf("%d@x.example", i)}); err != nil {
					t.Fatal(err)
				}
			}
			sent := r.Sent()
			if len(sent) != tc.wantLen {
				t.Fatalf("kept: got %d messages, want %d", len(sent), tc.wantLen)
			}
			if got := sent[0].To; got != tc.wantFirst {
				t.Errorf("oldest kept: got %s, want %s", got, tc.wantFirst)
			}
			if got := sent[len(sent)-1].To; got != tc.wantEnd {
				t.Errorf("newest kept: got %s, want %s", got, tc.wantEnd)
			}
		})
	}
}
