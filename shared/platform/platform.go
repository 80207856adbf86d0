// Package platform is what every function is built from: its configuration,
// its store, its clock and id generator. Each function's package wires its
// handler from an Env in one place (its Wire), which its main (with Load, in
// Lambda) and the local stack (with an Env of its own) both call, so what
// runs locally cannot drift from what ships.
package platform

import (
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/agentplatform/workspaceapi/shared/config"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Env is what a function is built from.
type Env struct {
	// Config is the function's configuration.
	Config config.Config
	// AWS is the AWS configuration its clients are made from (the
	// invitations function's SES client among them).
	AWS aws.Config
	// Store is the single table.
	Store *dynamo.Store
	// Clock tells the time; IDs make the ids of new entities.
	Clock workspace.Clock
	IDs   workspace.IDGenerator
}

// Load returns the Env of a function running in Lambda: JSON logs, the
// configuration from its environment, the DynamoDB client, the system clock.
// Its AWS configuration is what Lambda's environment gives
// (AWSConfigFromEnv): it fails, naming the variable, when the region or
// the execution role's credentials are missing. It does no I/O.
func Load() (Env, error) {
	config.UseJSONLogs()
	cfg, err := config.FromEnv()
	if err != nil {
		return Env{}, err
	}
	awsCfg, err := AWSConfigFromEnv(cfg.DynamoDBEndpoint)
	if err != nil {
		return Env{}, err
	}
	clock := workspace.SystemClock{}
	return Env{
		Config: cfg, AWS: awsCfg,
		Store: dynamo.New(dynamo.ClientFromConfig(awsCfg, cfg.DynamoDBEndpoint), cfg.TableName).
			WithAuditRetention(cfg.AuditRetention),
		Clock: clock, IDs: workspace.SortableIDs{Clock: clock},
	}, nil
}
