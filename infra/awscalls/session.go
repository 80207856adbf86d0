package awscalls

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// Invoke sends event to the function with logical id fn through the local
// gateway's POST /_local/invoke at baseURL, as Lambda's event sources would,
// and returns its JSON result; it fails the test unless the function
// answered (200).
func Invoke(t testing.TB, baseURL, fn string, event any) []byte {
	t.Helper()
	body, err := json.Marshal(event)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Post(baseURL+"/_local/invoke/"+fn, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("invoke %s: %v", fn, err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("invoke %s: %d %s", fn, res.StatusCode, out)
	}
	return out
}
