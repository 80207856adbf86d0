// Command runtime is the emulator's test function: a handler started with
// lambda.Start, as the real functions are, whose event says what to do, so
// the tests can make it answer, fail, panic, overrun its deadline or answer
// too much. LAMBDAEMU_TEST_INIT makes its init fail instead: "report" posts
// an init error to the Runtime API as a runtime may, "fatal" exits as the
// real functions do on a bad configuration, "idle" never asks for an event
// (the test then plays the runtime itself).
package main

import (
	"context"
	"errors"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"
)

// event says what the handler does.
type event struct {
	Do    string `json:"do"`
	Ms    int    `json:"ms"`
	Bytes int    `json:"bytes"`
}

// echo is what "echo" answers: what the runtime was told of the invocation.
type echo struct {
	RequestID   string            `json:"requestId"`
	FunctionArn string            `json:"functionArn"`
	DeadlineMs  int64             `json:"deadlineMs"`
	TraceID     string            `json:"traceId"`
	Env         map[string]string `json:"env"`
	Cwd         string            `json:"cwd"`
}

func handle(ctx context.Context, ev event) (any, error) {
	switch ev.Do {
	case "echo":
		lc, _ := lambdacontext.FromContext(ctx)
		deadline, _ := ctx.Deadline()
		env := map[string]string{}
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		cwd, _ := os.Getwd()
		trace, _ := ctx.Value("x-amzn-trace-id").(string)
		return echo{RequestID: lc.AwsRequestID, FunctionArn: lc.InvokedFunctionArn,
			DeadlineMs: deadline.UnixMilli(), TraceID: trace, Env: env, Cwd: cwd}, nil
	case "error":
		return nil, errors.New("the handler failed")
	case "panic":
		var m map[string]int
		//lint:ignore SA5000 the panic is the point
		m["boom"]++ // a nil map: a runtime error, as a real bug would be
		return nil, nil
	case "sleep":
		time.Sleep(time.Duration(ev.Ms) * time.Millisecond) // ignores its deadline, as a stuck call would
		return "slept", nil
	case "big":
		return strings.Repeat("x", ev.Bytes), nil
	}
	return nil, errors.New("unknown do: " + ev.Do)
}

func main() {
	switch os.Getenv("LAMBDAEMU_TEST_INIT") {
	case "report":
		url := "http://" + os.Getenv("AWS_LAMBDA_RUNTIME_API") + "/2018-06-01/runtime/init/error"
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"errorMessage": "no configuration", "errorType": "Config.Missing"}`))
		req.Header.Set("Lambda-Runtime-Function-Error-Type", "Config.Missing")
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
		os.Exit(1)
	case "fatal":
		log.Fatal("TABLE_NAME is not set")
	case "idle":
		for {
			time.Sleep(time.Hour) // not select {}: the runtime would call that a deadlock
		}
	}
	lambda.Start(handle)
}
