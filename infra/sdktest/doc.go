// Package sdktest runs each SDK's own tests (sdk/go, sdk/typescript) against
// the local stack: a test starts the stack with the demo fixture, as `make
// run` serves it, and runs the SDK's test command with the stack's address in
// WORKSPACEAPI_TEST_URL, so the README's tour is walked through each client.
package sdktest
