package workspace

// UsageIdentifierPrefix starts every workspace's usage identifier. It is 20
// characters long, API Gateway's least length for an API key's value, so the
// identifier of any workspace id is long enough; template.yaml's TenantApiKey
// writes the same prefix in its !Sub.
const UsageIdentifierPrefix = "workspace-api-usage-"

// UsageIdentifier returns the value under which API Gateway counts a
// workspace's requests against a usage plan: the authorizer returns it as
// usageIdentifierKey (the API's key source is AUTHORIZER), and an API
// Gateway API key with this value must sit in a usage plan of the stage, or
// every request of the workspace is refused with 403.
//
// It is the workspace id behind a fixed prefix, not a secret: clients never
// send it (their credential is their workspace API key), and deriving it from
// the id alone lets a stack create the key with !Sub and an operator register
// it without reading anything.
func UsageIdentifier(workspaceID string) string { return UsageIdentifierPrefix + workspaceID }
