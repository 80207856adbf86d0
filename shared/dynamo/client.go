package dynamo

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// ClientFromConfig returns a DynamoDB client for cfg; a non-empty endpoint
// overrides the service address. Against such an endpoint (DynamoDB Local)
// the response CRC32 check is off: DynamoDB Local sends no x-amz-crc32 on
// error responses, and the SDK then checks the body against 0 and logs a
// spurious warning for every cancelled transaction (aws-sdk-go-v2 #3545).
//
// Every client is resilient: bounded attempts, retries and calls, so that a
// failing table makes a quick 503 (workspace.ErrStorageUnavailable), not a
// Lambda timeout; and every read reports the capacity it consumed
// (countReadUnits).
func ClientFromConfig(cfg aws.Config, endpoint string, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	base := []func(*dynamodb.Options){resilient, countReadUnits}
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
	// resumePace is the scheduler's pace; zero: the constants' (scheduler.go).
	resumePace resumePace
}

// New returns a Store over the named table.
func New(db *dynamodb.Client, table string) *Store {
	return &Store{db: db, table: table}
}

// Table returns the name of the store's table.
func (s *Store) Table() string { return s.table }
