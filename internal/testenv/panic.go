package testenv

import "testing"

// MustPanic calls f and fails t, naming what, unless f panics.
func MustPanic(t testing.TB, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	f()
}
