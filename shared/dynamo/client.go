package dynamo

import (
	"errors"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/logging"
)

// Local stand-ins for the region and credentials against DynamoDB Local,
// when the environment gives none (sam local, the local runner, tests).
const (
	localRegion = "us-east-1"
	localKey    = "local"
)

// AWSConfigFromEnv returns the AWS configuration of a function, built from
// what Lambda puts in its environment: the region (AWS_REGION, else
// AWS_DEFAULT_REGION) and the execution role's credentials
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN). It is built
// directly rather than by the SDK's config package, whose default chain
// (shared files, SSO, STS, the sign-in and instance-metadata providers)
// Lambda never needs and every cold start would otherwise pay for: its
// packages' tables are set up at start-up and its clients linked.
//
// It fails with an error naming the variable when the region or the
// credentials are missing: no function ever runs on anonymous credentials.
// With a non-empty endpoint (DynamoDB Local) the region and credentials
// default to local stand-ins instead. It does no I/O.
func AWSConfigFromEnv(endpoint string) (aws.Config, error) {
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = os.Getenv("AWS_DEFAULT_REGION")
	}
	creds := aws.Credentials{
		AccessKeyID:     os.Getenv("AWS_ACCESS_KEY_ID"),
		SecretAccessKey: os.Getenv("AWS_SECRET_ACCESS_KEY"),
		SessionToken:    os.Getenv("AWS_SESSION_TOKEN"),
		AccountID:       os.Getenv("AWS_ACCOUNT_ID"),
		Source:          credentials.StaticCredentialsName,
	}
	if endpoint != "" {
		if region == "" {
			region = localRegion
		}
		if creds.AccessKeyID == "" {
			creds = aws.Credentials{AccessKeyID: localKey, SecretAccessKey: localKey, Source: credentials.StaticCredentialsName}
		}
	}
	var missing []error
	if region == "" {
		missing = append(missing, errors.New("AWS_REGION is not set"))
	}
	if creds.AccessKeyID == "" {
		missing = append(missing, errors.New("AWS_ACCESS_KEY_ID is not set"))
	}
	if creds.SecretAccessKey == "" {
		missing = append(missing, errors.New("AWS_SECRET_ACCESS_KEY is not set"))
	}
	if err := errors.Join(missing...); err != nil {
		return aws.Config{}, errors.Join(errors.New("AWS configuration: the function's environment lacks what Lambda sets"), err)
	}
	return aws.Config{
		Region:      region,
		Credentials: credentials.StaticCredentialsProvider{Value: creds},
		// As the SDK's default configuration: the SDK's own warnings
		// (a retried checksum, a deprecated setting) go to stderr.
		Logger: logging.NewStandardLogger(os.Stderr),
		RuntimeEnvironment: aws.RuntimeEnvironment{
			EnvironmentIdentifier: aws.ExecutionEnvironmentID(os.Getenv("AWS_EXECUTION_ENV")),
			Region:                region,
		},
	}, nil
}

// ClientFromConfig returns a DynamoDB client for cfg; a non-empty endpoint
// overrides the service address. Against such an endpoint (DynamoDB Local)
// the response CRC32 check is off: DynamoDB Local sends no x-amz-crc32 on
// error responses, and the SDK then checks the body against 0 and logs a
// spurious warning for every cancelled transaction (aws-sdk-go-v2 #3545).
//
// Every client is resilient: bounded attempts, retries and calls, so that a
// failing table makes a quick 503 (workspace.ErrStorageUnavailable), not a
// Lambda timeout.
func ClientFromConfig(cfg aws.Config, endpoint string, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	base := []func(*dynamodb.Options){resilient}
	if endpoint != "" {
		base = append(base, func(o *dynamodb.Options) {
			o.BaseEndpoint = aws.String(endpoint)
			o.DisableValidateResponseChecksum = true
		})
	}
	return dynamodb.NewFromConfig(cfg, append(base, optFns...)...)
}

// Store reads and writes the service's items in one table. Its methods return
// workspace domain errors (not found, invalid, forbidden) for conditions the
// caller can act on and wrapped SDK errors for everything else.
type Store struct {
	db    *dynamodb.Client
	table string
	// auditKeep is how long audit entries are kept (WithAuditRetention);
	// zero is workspace.DefaultAuditRetention.
	auditKeep time.Duration
}

// New returns a Store over the named table.
func New(db *dynamodb.Client, table string) *Store {
	return &Store{db: db, table: table}
}

// Table returns the name of the store's table.
func (s *Store) Table() string { return s.table }
