package dynamolocal

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Fault is a way DynamoDB can fail a request.
type Fault int

// The faults Faults injects. Each is real on the wire: the request is sent
// to a local stand-in that fails it that way, so the SDK's own parsing,
// retries and timeouts meet it as they would meet DynamoDB's.
const (
	// Throttle answers 400 ThrottlingException.
	Throttle Fault = iota + 1
	// ServerError answers 500 InternalServerError.
	ServerError
	// Slow answers, correctly shaped, only after 5 seconds: later than
	// any attempt may wait.
	Slow
	// Hang accepts the connection and never answers.
	Hang
	// Refused refuses the connection (nothing listens).
	Refused
)

// String names the fault.
func (f Fault) String() string {
	return map[Fault]string{Throttle: "throttling", ServerError: "500", Slow: "timeout", Hang: "hung connection", Refused: "connection refused"}[f]
}

// AllFaults lists every fault, for tables of tests.
var AllFaults = []Fault{Throttle, ServerError, Slow, Hang, Refused}

// Faults injects DynamoDB failures through an SDK middleware on the clients
// given its Option: once armed, it lets a number of attempts through and
// then fails every later one, until disarmed, so a test can cut storage off
// before a request or in the middle of a batch. Its zero value is disarmed.
type Faults struct {
	mu     sync.Mutex
	fault  Fault
	pass   int             // attempts still let through before failing
	ops    map[string]bool // operations affected; empty: every one
	backup map[Fault]string

	injected atomic.Int64
	once     sync.Once
	closers  []func()
}

// Arm makes every attempt of ops (every operation when none is named) fail
// with fault, after pass attempts of them went through.
func (f *Faults) Arm(fault Fault, pass int, ops ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fault, f.pass = fault, pass
	f.ops = map[string]bool{}
	for _, op := range ops {
		f.ops[op] = true
	}
}

// Disarm lets every attempt through again.
func (f *Faults) Disarm() {
	f.mu.Lock()
	f.fault = 0
	f.mu.Unlock()
}

// Injected returns how many attempts failed so far.
func (f *Faults) Injected() int64 { return f.injected.Load() }

// Close stops the stand-ins (call it when the test ends).
func (f *Faults) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.closers {
		c()
	}
	f.closers = nil
}

// take returns the fault this attempt of op meets, or 0.
func (f *Faults) take(op string) Fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fault == 0 || (len(f.ops) > 0 && !f.ops[op]) {
		return 0
	}
	if f.pass > 0 {
		f.pass--
		return 0
	}
	f.injected.Add(1)
	return f.fault
}

// Option returns the client option that injects the armed fault. It sits in
// the deserialize step next to the transport, so it sees every attempt after
// the SDK's retry and signing, and redirects a failing one to the stand-in.
func (f *Faults) Option() func(*dynamodb.Options) {
	f.once.Do(f.startStandIns)
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Deserialize.Add(middleware.DeserializeMiddlewareFunc("InjectFault",
				func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (
					middleware.DeserializeOutput, middleware.Metadata, error) {
					fault := f.take(middleware.GetOperationName(ctx))
					if req, ok := in.Request.(*smithyhttp.Request); ok && fault != 0 {
						f.mu.Lock()
						host := f.backup[fault]
						f.mu.Unlock()
						req.URL.Host = host
						req.Host = host
					}
					return next.HandleDeserialize(ctx, in)
				}), middleware.After)
		})
	}
}

// startStandIns starts a local server for each fault.
func (f *Faults) startStandIns() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.backup = map[Fault]string{}
	answer := func(status int, body string, delay time.Duration) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		}
	}
	for fault, h := range map[Fault]http.HandlerFunc{
		Throttle: answer(http.StatusBadRequest,
			`{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Rate of requests exceeds the allowed throughput."}`, 0),
		ServerError: answer(http.StatusInternalServerError,
			`{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"Internal server error"}`, 0),
		Slow: answer(http.StatusInternalServerError,
			`{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"too late"}`, 5*time.Second),
	} {
		srv := httptest.NewServer(h)
		f.backup[fault] = srv.Listener.Addr().String()
		f.closers = append(f.closers, srv.Close)
	}
	// A hung connection: accepted, read, never answered.
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		f.backup[Hang] = ln.Addr().String()
		var conns []net.Conn
		var cmu sync.Mutex
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				cmu.Lock()
				conns = append(conns, c)
				cmu.Unlock()
			}
		}()
		f.closers = append(f.closers, func() {
			_ = ln.Close()
			cmu.Lock()
			for _, c := range conns {
				_ = c.Close()
			}
			cmu.Unlock()
		})
	}
	// A refused connection: a port just freed, where nothing listens.
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		f.backup[Refused] = ln.Addr().String()
		_ = ln.Close()
	}
}
