package store

import (
	"fmt"
	"time"
)

// Error is a failed operation of the store on the object (or bucket, or prefix)
// Name, as the user wrote it, or on a name that is not a URL or path (Name "":
// Err says which).
type Error struct {
	Name string // the URL or path; "" when Err names it
	Err  error
}

func (e *Error) Error() string {
	if e.Name == "" {
		return "store: " + e.Err.Error()
	}
	return "store: " + e.Name + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// RangeError is a ranged read answered with other bytes than those asked for: a
// Content-Range of another range, or none where one was due.
type RangeError struct {
	Off, Len     int64  // asked for: Len bytes from Off
	Size         int64  // the object's size when opened
	ContentRange string // what the server said it sent, escaped ("" for none)
}

func (e *RangeError) Error() string {
	if e.ContentRange == "" {
		return fmt.Sprintf("asked for bytes=%d-%d of %d, the server answered without a Content-Range", e.Off, e.Off+e.Len-1, e.Size)
	}
	return fmt.Sprintf("asked for bytes=%d-%d of %d, the server answered with Content-Range %s", e.Off, e.Off+e.Len-1, e.Size, e.ContentRange)
}

// StallError is a try that received no byte for After: the server stalled.
type StallError struct {
	After time.Duration
}

func (e *StallError) Error() string {
	return fmt.Sprintf("the server sent nothing for %v", e.After)
}

// Note is a failed try that is about to be made again, as Retry.Notify is told.
type Note struct {
	What  string // the object (and byte range) or prefix
	Try   int    // the try that failed, from 1
	Tries int    // of how many
	Wait  time.Duration
	Err   error
}

func (n Note) String() string {
	return fmt.Sprintf("store: %s: try %d of %d failed (%v); trying again in %v", n.What, n.Try, n.Tries, n.Err, n.Wait.Round(time.Millisecond))
}
