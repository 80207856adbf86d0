// Package config reads the functions' settings from their environment, once,
// at cold start.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
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
	// InviteRetention is how long expired invitations stay listed
	// (INVITE_RETENTION_DAYS, whole days; default 180).
	InviteRetention time.Duration
}

// DefaultInviteAcceptURL is used when INVITE_ACCEPT_URL is not set.
const DefaultInviteAcceptURL = "https://app.example.com/invitations/accept"

// FromEnv reads the configuration; it returns an error when TABLE_NAME is not
// set or INVITE_RETENTION_DAYS is not a positive number.
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
	c.InviteRetention = workspace.DefaultInviteRetention
	if s := os.Getenv("INVITE_RETENTION_DAYS"); s != "" {
		days, err := strconv.Atoi(s)
		if err != nil || days < 1 {
			return Config{}, fmt.Errorf("INVITE_RETENTION_DAYS must be a whole number of days, at least 1")
		}
		c.InviteRetention = time.Duration(days) * 24 * time.Hour
	}
	return c, nil
}

// UseJSONLogs makes slog write JSON lines to stdout, the format the functions'
// CloudWatch log groups are configured for.
func UseJSONLogs() {
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stdout, nil)))
}
