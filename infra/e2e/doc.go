// Package e2e holds the end-to-end tests. The session test runs the packaged
// functions: every function of template.yaml is built with the Makefile's own
// flags and run as its own process under a Lambda Runtime API emulator
// (infra/lambdaemu), with the environment the template gives it and DynamoDB
// Local behind it, and one realistic session is driven through them: HTTP
// requests through the local API Gateway (infra/localgw) and the
// authorizer, an SQS batch, a scheduled event and a stream record. The
// provisioning test starts from an empty table and brings a workspace in
// through the ingest function alone (real SQS event shapes through the
// local gateway's /_local/invoke, with the in-process stack that `make run`
// serves), then drives the API over it. The package has no code of its own.
package e2e
