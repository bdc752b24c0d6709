package sharding

import (
	"fmt"
	"strings"
)

// ConvertError is a sharded conversion (or a placement, a verify, a gather) that
// could not start or finish. Setting marks options that are wrong as given, rather
// than an input or an output. Field is the option it is about, a field of
// ConvertOptions ("Mesh", "Spec", …), or "". Err is why (nil when the options alone
// are wrong), which the error unwraps to; Name, when set, is the path or URL that
// Err's store prefix repeats.
type ConvertError struct {
	Setting bool
	Field   string
	Name    string
	Err     error
	// what failed: fmt's format and arguments, in which {Field} stands for the
	// name of a field of ConvertOptions (see Text); "" for the cause alone
	format string
	args   []any
	cause  error // what the error unwraps to when the message quotes it (a fileCause) and Err is nil
}

// fileCause is a failed file operation that a message quotes: a caller words it (see
// ConvertError.Text), such as without Go's "open PATH:" since the message names the file.
type fileCause struct{ err error }

// Fields are the options of ConvertOptions that messages name.
var Fields = []string{"Mesh", "Devices", "Spec", "Rules", "To", "DType",
	"Tensor", "All", "Process", "Pad", "Checksum", "Force"}

func (e *ConvertError) Error() string {
	msg := e.Text(nil, nil)
	switch {
	case e.Err == nil:
		return "sharding: " + msg
	case msg == "":
		return e.Err.Error()
	}
	return "sharding: " + msg + ": " + e.Err.Error()
}

func (e *ConvertError) Unwrap() error {
	if e.Err == nil {
		return e.cause
	}
	return e.Err
}

// Text is what failed, without the cause, with each {Field} named by name (nil: by
// the field's own name, such as Mesh) and each failed file operation it quotes worded
// by cause (nil: by its Error()); a command line names the fields by its flags.
func (e *ConvertError) Text(name func(field string) string, cause func(error) string) string {
	if e.format == "" {
		return ""
	}
	if name == nil {
		name = func(f string) string { return f }
	}
	format := e.format
	for _, f := range Fields {
		format = strings.ReplaceAll(format, "{"+f+"}", strings.ReplaceAll(name(f), "%", "%%"))
	}
	args := make([]any, len(e.args))
	for i, a := range e.args {
		if c, ok := a.(fileCause); ok {
			a = c.err.Error()
			if cause != nil {
				a = cause(c.err)
			}
		}
		args[i] = a
	}
	return fmt.Sprintf(format, args...)
}

// worded is an error whose sentence names fields, worded by a caller (convert.Error).
type worded interface {
	Words(name func(field string) string, cause func(error) string) string
}

// causeWords is err's text with its fields named by name, where err is worded.
func causeWords(err error, name func(field string) string) string {
	if w, ok := err.(worded); ok && name != nil {
		return w.Words(name, nil)
	}
	return err.Error()
}

// TensorError is an error about one tensor of the checkpoint: its name, and why.
type TensorError struct {
	Tensor string
	Err    error
}

func (e *TensorError) Error() string { return fmt.Sprintf("tensor %q: %v", e.Tensor, e.Err) }

func (e *TensorError) Unwrap() error { return e.Err }

// Words is the error with the fields its cause names worded by name.
func (e *TensorError) Words(name func(field string) string, _ func(error) string) string {
	return fmt.Sprintf("tensor %q: %s", e.Tensor, causeWords(e.Err, name))
}

// usage is a Setting error; format's first {Field} is its Field.
func usage(format string, args ...any) error {
	return &ConvertError{Setting: true, Field: firstField(format), format: format, args: args}
}

// settingErr is a Setting error about field, caused by err.
func settingErr(field string, err error) error {
	return &ConvertError{Setting: true, Field: field, Err: err, format: "{" + field + "}"}
}

// firstField is the first {Field} of format, or "".
func firstField(format string) string {
	best, at := "", len(format)
	for _, f := range Fields {
		if i := strings.Index(format, "{"+f+"}"); i >= 0 && i < at {
			best, at = f, i
		}
	}
	return best
}
