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
	// Stall fails a try of a read (a stat, a listing, a range) that receives no
	// byte for this long, with a StallError; 0 means no limit.
	Stall time.Duration
	// StallTries is how many tries of one read may stall (its resumptions included)
	// before it fails; 0 means as many as Tries.
	StallTries int
	// Notify, when not nil, is told of every failed try that is made again (from
	// the goroutine that made it), to show a user that something is being waited for.
	Notify func(Note)
}

// DefaultRetry tries 6 times over about 15 s, each attempt bounded by 2 minutes;
// a try of a read fails when no byte came for 20 s, and a read fails when two of
// its tries did: a server that stalls fails it within about 41 s.
var DefaultRetry = Retry{Tries: 6, First: 250 * time.Millisecond, Max: 8 * time.Second, Timeout: 2 * time.Minute,
	Stall: 20 * time.Second, StallTries: 2}

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
	var stall *StallError
	if errors.As(err, &stall) {
		return true
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) // timeouts and other network failures
}

// call is one operation of a Bucket, as its retries see it.
type call struct {
	what   string // names what is read or written, for Notify
	read   bool   // whether Stall applies: a read from a server, which sends bytes as it goes (a local file's read does not tell of its progress)
	stalls int    // tries that stalled, across every do of this call
}

// do runs f until it succeeds, fails for good, or r.Tries attempts failed (or, of
// a read, r.StallTries stalled); the error then says how many tries were made.
func (r Retry) do(ctx context.Context, c *call, f func(context.Context) error) error {
	tries := max(r.Tries, 1)
	stallTries := r.StallTries
	if stallTries <= 0 {
		stallTries = tries
	}
	wait := r.First
	for i := 1; ; i++ {
		err := r.attempt(ctx, c.read, f)
		if err == nil {
			return nil
		}
		if !transient(err) || ctx.Err() != nil {
			return err
		}
		var se *StallError
		if errors.As(err, &se) {
			c.stalls++
		}
		if i == tries || c.stalls >= stallTries && se != nil {
			return fmt.Errorf("gave up after %d tries: %w", i, err)
		}
		// Full jitter: processes that failed together do not retry together.
		d := time.Duration(rand.Int64N(int64(wait) + 1))
		if r.Notify != nil {
			r.Notify(Note{What: c.what, Try: i, Tries: tries, Wait: d, Err: err})
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(d):
		}
		wait = min(2*wait, r.Max)
	}
}

// attempt is one try of f, bounded by r.Timeout, and when read by r.Stall: the
// try's context ends when no byte came for r.Stall (f calls received as bytes
// come), and the try's error is then a StallError.
func (r Retry) attempt(ctx context.Context, read bool, f func(context.Context) error) error {
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	if !read || r.Stall <= 0 {
		return f(ctx)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	g := &stallGuard{d: r.Stall}
	g.t = time.AfterFunc(r.Stall, func() { cancel(&StallError{After: r.Stall}) })
	defer func() { g.t.Stop(); cancel(nil) }()
	err := f(context.WithValue(ctx, stallKey{}, g))
	var se *StallError
	if err != nil && errors.As(context.Cause(ctx), &se) {
		return se
	}
	return err
}

// stallGuard ends a try's context after d without a call of received.
type stallGuard struct {
	d time.Duration
	t *time.Timer
}

type stallKey struct{}

// received tells the stall timeout of ctx's try, if any, that bytes came.
func received(ctx context.Context) {
	if g, ok := ctx.Value(stallKey{}).(*stallGuard); ok {
		g.t.Reset(g.d)
	}
}
