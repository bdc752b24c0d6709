// Package strictjson decodes JSON strictly: a key it does not know, a key given twice
// in one object and anything after the value are errors, never ignored. The manifest,
// the rules and the checkpoint index of package sharding are read with it.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Error is a JSON text that Decode refuses for one key: Key is its path (rules[2].match),
// Msg the whole message and Err encoding/json's error, when it gave one.
type Error struct {
	Key string
	Msg string
	Err error
}

func (e *Error) Error() string { return e.Msg }

func (e *Error) Unwrap() error { return e.Err }

// Decode decodes one JSON value into v: unknown keys, a key given twice in one
// object and anything after the value are errors, which name the key by its path
// (rules[2].match). encoding/json alone would ignore the first and keep the last of
// the second, silently.
func Decode(data []byte, v any) error {
	if err := CheckDuplicateKeys(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			return &Error{Key: ute.Field, Msg: fmt.Sprintf("key %q holds a JSON %s, want %s", ute.Field, ute.Value, ute.Type), Err: err}
		}
		if msg, ok := unknownField(err); ok {
			return &Error{Key: strings.Trim(msg, `"`), Msg: "unknown key " + msg, Err: err}
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("more data after the JSON value (at byte %d)", dec.InputOffset())
	}
	return nil
}

// unknownField returns the quoted key of encoding/json's unknown-field error.
func unknownField(err error) (string, bool) {
	const p = "json: unknown field "
	s := err.Error()
	if len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return "", false
}

// CheckDuplicateKeys scans the JSON text and fails at the first object that holds a
// key twice, naming it by its path. It only follows the nesting: what is not valid
// JSON the decoder then reports. (encoding/json's Token API did the same at a fifth of
// the speed, which a manifest of a million devices felt.)
func CheckDuplicateKeys(data []byte) error {
	type frame struct {
		obj     bool
		wantKey bool
		idx     int      // arrays: the element
		key     string   // objects: the current key
		keys    []string // objects: the keys so far, until there are many
		set     map[string]bool
	}
	var stack []frame
	path := func(last string) string {
		var b strings.Builder
		for _, f := range stack[:len(stack)-1] { // the last is the object with the key
			switch {
			case f.obj:
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			case !f.obj:
				fmt.Fprintf(&b, "[%d]", f.idx)
			}
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(last)
		return b.String()
	}
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			j := i + 1
			esc := false
			for ; j < len(data) && data[j] != '"'; j++ {
				if data[j] == '\\' {
					esc = true
					j++
				}
			}
			if j >= len(data) {
				return nil // unterminated: the decoder says so
			}
			if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].wantKey {
				f := &stack[n-1]
				k := string(data[i+1 : j])
				if esc {
					if err := json.Unmarshal(data[i:j+1], &k); err != nil {
						return nil
					}
				}
				dup := false
				if f.set != nil {
					dup = f.set[k]
					f.set[k] = true
				} else {
					dup = slices.Contains(f.keys, k)
					f.keys = append(f.keys, k)
					if len(f.keys) > 16 {
						f.set = map[string]bool{}
						for _, x := range f.keys {
							f.set[x] = true
						}
					}
				}
				if dup {
					return &Error{Key: path(k), Msg: fmt.Sprintf("key %q is given twice", path(k))}
				}
				f.key, f.wantKey = k, false
			}
			i = j
		case '{', '[':
			if len(stack) >= 100 { // no file of ours nests deeper than 5
				return fmt.Errorf("JSON nested more than 100 deep at byte %d", i)
			}
			stack = append(stack, frame{obj: data[i] == '{', wantKey: data[i] == '{'})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if n := len(stack); n > 0 {
				if stack[n-1].obj {
					stack[n-1].wantKey = true
				} else {
					stack[n-1].idx++
				}
			}
		}
	}
	return nil
}
