package convert

import (
	"errors"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/internal/errtext"
)

// Kind is what went wrong, so that a caller can tell bad settings from bad files.
type Kind int

const (
	// Input: an input cannot be read or is not what the settings say (a missing file,
	// a raw file of the wrong size, a tensor of other dims, a shape that does not parse).
	Input Kind = iota
	// Setting: settings that contradict each other or are missing (To and All together
	// with a shape, a Pad the element type cannot hold exactly, …).
	Setting
	// Output: Out cannot be written (no space, not a regular file, an I/O error).
	Output
)

func (k Kind) String() string { return [...]string{"input", "setting", "output"}[k] }

// Fields are the names of the settings and files of [Job] and [Check] that messages
// name: a message's {In}, {To}, … stand for them (see [Message.Text]). Mesh is not
// theirs: it is the sharded conversion's (package sharding), which a message names as
// where buckets are taken.
var Fields = []string{"In", "Out", "To", "From", "DType", "Tensor", "Pad", "View", "All",
	"Force", "Dump", "Ref", "Layout", "RefShape", "Mesh"}

// Message is a sentence about a job. It names the job's settings and files by their
// fields, and quotes its causes, which [Message.Text] lets a caller word its own way:
// a command line names the fields by its flags, say.
type Message struct {
	format string // fmt's format, in which {Field} stands for a field of Fields
	args   []any  // fmt's arguments; the errors among them are causes
}

// Text is the message with each field named by name and each cause worded by cause;
// a nil name names a field by itself, a nil cause words it by its Error().
func (m Message) Text(name func(field string) string, cause func(error) string) string {
	return errtext.Fill(m.format, m.args, isField, name, cause)
}

// String is the message naming the fields by their names.
func (m Message) String() string { return m.Text(nil, nil) }

func isField(s string) bool {
	for _, f := range Fields {
		if f == s {
			return true
		}
	}
	return false
}

// Error is every error a Job or a Check returns. Field and Path say what it is about;
// Err is its cause, which it unwraps to (errors.Is(err, fs.ErrNotExist) holds for a
// missing In).
type Error struct {
	Kind  Kind
	Field string  // the field it is about, of Fields ("To", "In", …); "" for none
	Path  string  // the file it is about, when there is one
	Err   error   // the cause; nil when the settings alone are wrong
	Msg   Message // the whole sentence, quoting Err
}

func (e *Error) Error() string { return e.Msg.String() }
func (e *Error) Unwrap() error { return e.Err }

// Words is the message with each field named by name and each cause worded by cause
// (see [Message.Text]); a cause that is a reader's error about the file Path (a
// *buffer.FileError) is worded without the name, which the message names already.
func (e *Error) Words(name func(field string) string, cause func(error) string) string {
	if cause == nil || e.Path == "" {
		return e.Msg.Text(name, cause)
	}
	return e.Msg.Text(name, func(c error) string {
		if fe, ok := c.(*buffer.FileError); ok && fe.Name == e.Path {
			c = fe.Err
		}
		return cause(c)
	})
}

// KindOf returns the kind of err: that of the first *Error in its chain, else Input.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Input
}

// newError makes an error of kind k from a message format whose {Field}s name the
// job's parts: Field is the first of them, and Err the first error among args.
func (n names) newError(k Kind, format string, args ...any) *Error {
	e := &Error{Kind: k, Field: errtext.FirstField(format, isField), Msg: Message{format: format, args: args}}
	for _, a := range args {
		if err, ok := a.(error); ok {
			e.Err = err
			break
		}
	}
	return e
}

// errf makes an error of kind k (see newError).
func (n names) errf(k Kind, format string, args ...any) error {
	return n.newError(k, format, args...)
}

// pathErrf is errf for an error about the file path.
func (n names) pathErrf(k Kind, path, format string, args ...any) error {
	e := n.newError(k, format, args...)
	e.Path = path
	return e
}

// wrapf is errf keeping err's kind (Input when it has none) and field.
func (n names) wrapf(err error, format string, args ...any) error {
	e := n.newError(KindOf(err), format, args...)
	var inner *Error
	if errors.As(err, &inner) {
		e.Field, e.Path = inner.Field, inner.Path
	}
	e.Err = err
	return e
}

// message is a note's sentence (see errf).
func (n names) message(format string, args ...any) Message {
	return Message{format: format, args: args}
}

// textMessage is a sentence of finished text, whose {Field}s name fields.
func textMessage(s string) Message {
	return Message{format: strings.ReplaceAll(s, "%", "%%")}
}

// usagef makes a Setting error (see newError).
func usagef(format string, args ...any) error {
	return names{}.newError(Setting, format, args...)
}

// inputf makes an Input error (see newError).
func inputf(format string, args ...any) error {
	return names{}.newError(Input, format, args...)
}

// names is the receiver of the helpers that make errors and notes.
type names struct{}

// typed returns err as an *Error: nil stays nil, an *Error is itself, and any other
// error is the cause of one of its kind, worded as err.Error().
func typed(err error) error {
	if err == nil {
		return nil
	}
	if e, ok := err.(*Error); ok {
		return e
	}
	return &Error{Kind: KindOf(err), Err: err, Msg: Message{format: "%s", args: []any{err.Error()}}}
}
