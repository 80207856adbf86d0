package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentplatform/workspaceapi/shared/ingest"
)

// receiveOutput is what `aws sqs receive-message` prints: the messages taken.
type receiveOutput struct {
	Messages []struct {
		MessageID string `json:"MessageId"`
		Body      string `json:"Body"`
	} `json:"Messages"`
}

// redrivePlan reads the output of `aws sqs receive-message` on the ingest
// dead-letter queue and prints, per message, whether it may go back to the
// ingest queue (ingest.Redrive): "move<TAB>messageId", or
// "hold<TAB>messageId<TAB>why". The procedure in docs/operations.md sends the
// moved ones and records the held ones. It reads no table.
func (a *app) redrivePlan(args []string) error {
	const cmd = "redrive-plan"
	fs := newFlagSet(cmd)
	in := fs.String("in", "-", "")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	var r io.Reader = os.Stdin
	if *in != "-" {
		f, err := os.Open(*in)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	var out receiveOutput
	if err := json.NewDecoder(io.LimitReader(r, 64<<20)).Decode(&out); err != nil && err != io.EOF {
		return fmt.Errorf("%s: the input is not the output of aws sqs receive-message: %w", cmd, err)
	}
	now := a.now()
	for _, m := range out.Messages {
		if ok, why := ingest.Redrive([]byte(m.Body), now); ok {
			fmt.Fprintf(a.stdout, "move\t%s\n", m.MessageID)
		} else {
			fmt.Fprintf(a.stdout, "hold\t%s\t%s\n", m.MessageID, strings.Join(strings.Fields(why), " "))
		}
	}
	return nil
}
