package webhookdelivery_test

import (
	"os"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }
