// Command withdynamodb runs a command with DYNAMODB_ENDPOINT naming one
// in-memory DynamoDB Local started for it, and stops that instance when the
// command ends; it exits with the command's status. make test runs every test
// binary through it, so they share one instance instead of starting one each
// (a JVM's start and warm-up cost about as much CPU as a small package's
// tests). Each test still has a table of its own (dynamolocal.NewTable), and
// benchmarks and large-table tests still start their own (dynamolocal.Own).
//
// When DYNAMODB_ENDPOINT is already set, the command runs against it and no
// instance is started.
//
//	go run ./infra/cmd/withdynamodb -- go test ./...
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: withdynamodb [--] command [args...]")
		os.Exit(2)
	}
	os.Exit(run(args))
}

// run runs args with the endpoint in its environment and returns its exit
// status (1 when it could not run or was killed by a signal).
func run(args []string) int {
	env := os.Environ()
	if os.Getenv("DYNAMODB_ENDPOINT") == "" {
		inst, err := dynamolocal.Start(context.Background(), dynamolocal.Options{})
		if err != nil {
			fmt.Fprintf(os.Stderr, "withdynamodb: %v\n", err)
			return 1
		}
		defer func() { _ = inst.Stop() }()
		env = append(env, "DYNAMODB_ENDPOINT="+inst.Endpoint)
	}
	// An interrupt from the terminal reaches the command too (one process
	// group), and a SIGTERM is passed on to it: this process waits for the
	// command to end, then stops the instance. Caught, not ignored: an
	// ignored signal would stay ignored in the command.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Start()
	if err == nil {
		done := make(chan struct{})
		go func() {
			for {
				select {
				case s := <-signals:
					if s == syscall.SIGTERM {
						_ = cmd.Process.Signal(s)
					}
				case <-done:
					return
				}
			}
		}()
		err = cmd.Wait()
		close(done)
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return exit.ExitCode()
	default:
		fmt.Fprintf(os.Stderr, "withdynamodb: %v\n", err)
		return 1
	}
}
