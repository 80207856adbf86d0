package tableops

import (
	"net/netip"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// LoopbackEndpoint reports whether endpoint is an http or https URL whose
// host is a loopback IP address written as such (127.0.0.0/8 or ::1), the
// way DynamoDB Local is reached on the machine that runs it. A host name,
// "localhost" included, is not: what it resolves to is the machine's
// resolver's business, not something this check can vouch for. Nor is an
// empty endpoint (AWS itself), one with user information (which only serves
// to disguise a host) or anything unparsable; a mistyped address
// therefore counts as remote, which refuses more, never less.
func LoopbackEndpoint(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" || u.User != nil {
		return false
	}
	addr, err := netip.ParseAddr(u.Hostname())
	if err != nil || addr.Zone() != "" {
		return false
	}
	return addr.Unmap().IsLoopback()
}

// TargetsLoopback reports whether client sends its requests to a loopback
// endpoint (LoopbackEndpoint of its BaseEndpoint): DynamoDB Local on this
// machine rather than an AWS table. It reads the client's own options, so it
// judges the very address the requests go to, whichever flag or environment
// variable set it; a client without an endpoint of its own talks to AWS.
func TargetsLoopback(client *dynamodb.Client) bool {
	return LoopbackEndpoint(aws.ToString(client.Options().BaseEndpoint))
}
