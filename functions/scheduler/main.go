// Command scheduler is the Lambda EventBridge runs at 00:00 UTC daily: it
// resumes the agents and teams a new day or month frees.
package main

import (
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/platform"
	"github.com/agentplatform/workspaceapi/shared/scheduler"
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
	lambda.Start(scheduler.Wire(env))
	return nil
}
