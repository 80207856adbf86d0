// Command retention is the Lambda fed by the table's stream: it frees the
// seat of an invitation the table's time to live removed while it held one.
package main

import (
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/platform"
	"github.com/agentplatform/workspaceapi/shared/retention"
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
	lambda.Start(retention.Wire(env))
	return nil
}
