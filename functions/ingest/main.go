// Command ingest is the Lambda fed by the ingest queue: it applies the
// platform's events (usage, chats, diary entries, key-metric records).
package main

import (
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/ingest"
	"github.com/agentplatform/workspaceapi/shared/platform"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	env, err := platform.Load()
	if err != nil {
		return err
	}
	lambda.Start(ingest.Wire(env))
	return nil
}
