package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTransient(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&StatusError{Code: 503}, true},
		{&StatusError{Code: 500}, true},
		{&StatusError{Code: 429}, true},
		{&StatusError{Code: 403}, false},
		{fmt.Errorf("x: %w", io.ErrUnexpectedEOF), true},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{context.DeadlineExceeded, true},
		{fmt.Errorf("object %w", ErrNotExist), false},
		{ErrChanged, false},
		{errors.New("bad request"), false},
	} {
		if got := transient(c.err); got != c.want {
			t.Errorf("transient(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestRetryGivesUp(t *testing.T) {
	r := Retry{Tries: 4, First: time.Millisecond, Max: 2 * time.Millisecond}
	n := 0
	err := r.do(context.Background(), &call{}, func(context.Context) error { n++; return &StatusError{Code: 503, Msg: "SlowDown"} })
	if n != 4 || err == nil || !strings.Contains(err.Error(), "gave up after 4 tries: HTTP status 503: SlowDown") {
		t.Errorf("after %d calls: %v", n, err)
	}
	n = 0
	err = r.do(context.Background(), &call{}, func(context.Context) error {
		n++
		if n < 3 {
			return io.ErrUnexpectedEOF
		}
		return nil
	})
	if n != 3 || err != nil {
		t.Errorf("after %d calls: %v; want success on the third", n, err)
	}
	n = 0
	err = r.do(context.Background(), &call{}, func(context.Context) error { n++; return &StatusError{Code: 403} })
	if n != 1 || err == nil {
		t.Errorf("a 403 was tried %d times (%v); want once", n, err)
	}
}

func TestRetryTimeoutPerAttempt(t *testing.T) {
	r := Retry{Tries: 3, First: time.Millisecond, Max: time.Millisecond, Timeout: 20 * time.Millisecond}
	n := 0
	err := r.do(context.Background(), &call{}, func(ctx context.Context) error {
		n++
		if n == 1 { // a stalled first attempt
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})
	if n != 2 || err != nil {
		t.Errorf("after %d calls: %v; want the stalled attempt retried once", n, err)
	}
}
