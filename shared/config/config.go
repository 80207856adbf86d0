// Package config reads the functions' settings from their environment, once,
// at cold start.
package config

import (
	"errors"
	"log/slog"
	"os"
)

// Config is every setting a function reads from its environment.
type Config struct {
	// TableName is the single table (TABLE_NAME, required).
	TableName string
	// DynamoDBEndpoint overrides the DynamoDB address (DYNAMODB_ENDPOINT; empty in AWS).
	DynamoDBEndpoint string
	// MailFrom is the SES sender (MAIL_FROM); empty records e-mail instead of sending it.
	MailFrom string
	// InviteAcceptURL is the base of invitation links (INVITE_ACCEPT_URL).
	InviteAcceptURL string
}

// DefaultInviteAcceptURL is used when INVITE_ACCEPT_URL is not set.
const DefaultInviteAcceptURL = "https://app.example.com/invitations/accept"

// FromEnv reads the configuration; it returns an error when TABLE_NAME is not set.
func FromEnv() (Config, error) {
	c := Config{
		TableName:        os.Getenv("TABLE_NAME"),
		DynamoDBEndpoint: os.Getenv("DYNAMODB_ENDPOINT"),
		MailFrom:         os.Getenv("MAIL_FROM"),
		InviteAcceptURL:  os.Getenv("INVITE_ACCEPT_URL"),
	}
	if c.TableName == "" {
		return Config{}, errors.New("TABLE_NAME is not set")
	}
	if c.InviteAcceptURL == "" {
		c.InviteAcceptURL = DefaultInviteAcceptURL
	}
	return c, nil
}

// UseJSONLogs makes slog write JSON lines to stdout, the format the functions'
// CloudWatch log groups are configured for.
func UseJSONLogs() {
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stdout, nil)))
}
