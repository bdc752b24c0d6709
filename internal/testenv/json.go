package testenv

import (
	"encoding/json"
	"testing"
)

// JSON is v marshalled as JSON; it fails t if v does not marshal.
func JSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
