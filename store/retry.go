package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"syscall"
	"time"

	"golang.org/x/oauth2"
)

// Retry says how often and how patiently a failed request is tried again.
type Retry struct {
	Tries int           // attempts in all, at least 1
	First time.Duration // the wait after the first failure, doubled after each
	Max   time.Duration // the longest wait
	// Timeout bounds one attempt; 0 means none beyond the caller's context.
	Timeout time.Duration
}

// DefaultRetry tries 6 times over about 15 s, each attempt bounded by 2 minutes.
var DefaultRetry = Retry{Tries: 6, First: 250 * time.Millisecond, Max: 8 * time.Second, Timeout: 2 * time.Minute}

// StatusError is an HTTP status from a store.
type StatusError struct {
	Code int
	Msg  string
}

func (e *StatusError) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("HTTP status %d", e.Code)
	}
	return fmt.Sprintf("HTTP status %d: %s", e.Code, e.Msg)
}

// transient reports whether err may go away if the request is tried again: a 5xx or
// 429 status, a timeout, or a connection dropped or refused mid-request.
func transient(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code >= 500 || se.Code == 429 || se.Code == 408
	}
	if errors.Is(err, ErrNotExist) || errors.Is(err, ErrChanged) || errors.Is(err, context.Canceled) {
		return false
	}
	// A token endpoint's answer: refused credentials stay refused (the url.Error
	// around it would pass for a network failure below).
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return re.Response != nil && (re.Response.StatusCode >= 500 || re.Response.StatusCode == 429)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) // timeouts and other network failures
}

// do runs f until it succeeds, fails for good, or r.Tries attempts failed; the
// error then says how many tries were made.
func (r Retry) do(ctx context.Context, f func(context.Context) error) error {
	tries := max(r.Tries, 1)
	wait := r.First
	for i := 1; ; i++ {
		err := r.attempt(ctx, f)
		if err == nil {
			return nil
		}
		if !transient(err) || ctx.Err() != nil {
			return err
		}
		if i == tries {
			return fmt.Errorf("gave up after %d tries: %w", tries, err)
		}
		// Full jitter: processes that failed together do not retry together.
		d := time.Duration(rand.Int64N(int64(wait) + 1))
		select {
		case <-ctx.Done():
			return err
		case <-time.After(d):
		}
		wait = min(2*wait, r.Max)
	}
}

func (r Retry) attempt(ctx context.Context, f func(context.Context) error) error {
	if r.Timeout <= 0 {
		return f(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	return f(ctx)
}
