package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"strings"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// goErrorHeaders ends the head of the answers net/http writes by itself,
// before any handler runs, to a request it cannot read (headers over
// MaxHeaderBytes: 431; two Content-Length headers, a bad header line: 400;
// an unknown transfer coding: 501). It writes each whole, in one Write, on
// the raw connection.
const goErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// jsonErrors wraps the runner's listener so that those answers, too, are
// {"error": "..."} JSON with Cache-Control: no-store, as every error of the
// API is (docs/local-runner.md): no answer of the runner is plain text.
func jsonErrors(ln net.Listener) net.Listener { return jsonErrorListener{ln} }

type jsonErrorListener struct{ net.Listener }

// Accept wraps each connection.
func (l jsonErrorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return jsonErrorConn{c}, nil
}

type jsonErrorConn struct{ net.Conn }

// Write passes every write through, but for net/http's own error answers,
// which it writes as JSON instead.
func (c jsonErrorConn) Write(p []byte) (int, error) {
	if !bytes.HasPrefix(p, []byte("HTTP/1.1 ")) || !bytes.Contains(p, []byte(goErrorHeaders)) {
		return c.Conn.Write(p)
	}
	head, _, _ := strings.Cut(string(p), "\r\n")
	status := strings.TrimPrefix(head, "HTTP/1.1 ") // "431 Request Header Fields Too Large", "400 Bad Request: ..."
	code, reason, _ := strings.Cut(status, " ")
	text, detail, _ := strings.Cut(reason, ": ")
	msg := strings.ToLower(text)
	if detail != "" {
		msg += ": " + detail
	}
	body, _ := json.Marshal(map[string]string{"error": workspace.RedactKeys(msg)})
	out := fmt.Sprintf("HTTP/1.1 %s %s\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"+
		"Content-Length: %d\r\nConnection: close\r\n\r\n%s", code, text, len(body), body)
	if _, err := c.Conn.Write([]byte(out)); err != nil {
		return 0, err
	}
	return len(p), nil
}
