package testenv

import (
	"fmt"
	"runtime"
	"testing"
)

// Record calls f with a stand-in testing.TB and returns what f reported through
// it (Error, Errorf, Fatal, Fatalf) and whether f stopped (Fatal, Fatalf, FailNow,
// SkipNow and the rest that end a test call runtime.Goexit; Record runs f on its own
// goroutine). It is for the tests of test helpers: a helper that should fail
// a test is called with the stand-in, and t goes on. Other methods (Log, TempDir,
// Cleanup, …) go to t.
func Record(t testing.TB, f func(tb testing.TB)) (errs []string, stopped bool) {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan bool)
	go func() {
		returned := false
		defer func() { done <- !returned }()
		f(r)
		returned = true
	}()
	stopped = <-done
	return r.errs, stopped
}

// recorder is the stand-in: it records instead of failing, and stops the helper
// with runtime.Goexit where a test would stop.
type recorder struct {
	testing.TB
	errs   []string
	failed bool
}

func (r *recorder) Helper()      {}
func (r *recorder) Fail()        { r.failed = true }
func (r *recorder) Failed() bool { return r.failed }
func (r *recorder) Error(args ...any) {
	r.errs, r.failed = append(r.errs, fmt.Sprint(args...)), true
}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs, r.failed = append(r.errs, fmt.Sprintf(format, args...)), true
}
func (r *recorder) FailNow()                          { r.Fail(); runtime.Goexit() }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...); runtime.Goexit() }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); runtime.Goexit() }
func (r *recorder) SkipNow()                          { runtime.Goexit() }
func (r *recorder) Skip(args ...any)                  { runtime.Goexit() }
func (r *recorder) Skipf(format string, args ...any)  { runtime.Goexit() }
