package buffer

import "fmt"

// Kind is a kind of failure that [errors.Is] tests for, such as [ErrFormat]: it reads
// "buffer: WORD", and WORD alone where an [Error] of another package names it.
type Kind struct{ word string }

func (k *Kind) Error() string { return "buffer: " + k.word }

// Word is the kind's word, such as "invalid file format".
func (k *Kind) Word() string { return k.word }

// Error is an error of a package built on this one, such as a file format's reader
// (npy, safetensors): it reads "PKG: KIND: …", naming the package that failed and the
// kind of failure (ErrFormat reads "invalid file format"), and [errors.Is] finds both
// the kind and any error its message wraps.
type Error struct {
	Pkg  string // such as "npy"
	Kind error  // ErrFormat, ErrDType, ErrSize, ErrNotFound, … (a *Kind: named by its word)
	Err  error  // the details
}

// Errorf returns an [Error] of package pkg and the given kind, with the details of
// format (which may wrap errors with %w).
func Errorf(pkg string, kind error, format string, args ...any) error {
	return &Error{Pkg: pkg, Kind: kind, Err: fmt.Errorf(format, args...)}
}

func (e *Error) Error() string {
	kind := e.Kind.Error()
	if k, ok := e.Kind.(*Kind); ok {
		kind = k.Word()
	}
	return e.Pkg + ": " + kind + ": " + e.Err.Error()
}

func (e *Error) Unwrap() []error { return []error{e.Kind, e.Err} }

// FileError is an error about the file a reader calls Name: it reads "NAME: …" and
// unwraps to Err, so that a message that names the file already can quote Err alone.
type FileError struct {
	Name string // the file, as the reader was told to call it
	Err  error
}

func (e *FileError) Error() string { return e.Name + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }
