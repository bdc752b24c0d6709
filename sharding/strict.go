package sharding

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Size limits of the JSON files the package reads whole: far above any real file (a
// manifest of 1,048,576 devices that all hold one shard is a few KB, one that lists
// each device's files about 100 bytes a device), low enough that /dev/zero or a
// mistyped path to a checkpoint fails at once instead of filling memory.
const (
	MaxRulesBytes    = 16 << 20
	MaxManifestBytes = 512 << 20
	MaxIndexBytes    = 64 << 20
)

// readLimited reads the file at path whole, failing if it holds more than limit bytes
// (it reads at most limit+1: a device or a FIFO never ends).
func readLimited(path, what string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("sharding: %s %s: %w", what, path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("sharding: %s %s is larger than the limit of %d bytes", what, path, limit)
	}
	return data, nil
}

// decodeStrict decodes one JSON value into v: unknown keys, a key given twice in one
// object and anything after the value are errors, which name the key by its path
// (rules[2].match). encoding/json alone would ignore the first and keep the last of
// the second, silently.
func decodeStrict(data []byte, v any) error {
	if err := checkDuplicateKeys(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			return fmt.Errorf("key %q holds a JSON %s, want %s", ute.Field, ute.Value, ute.Type)
		}
		if msg, ok := unknownField(err); ok {
			return fmt.Errorf("unknown key %s", msg)
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

// checkDuplicateKeys scans the JSON text and fails at the first object that holds a
// key twice, naming it by its path. It only follows the nesting: what is not valid
// JSON the decoder then reports. (encoding/json's Token API did the same at a fifth of
// the speed, which a manifest of a million devices felt.)
func checkDuplicateKeys(data []byte) error {
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
					return fmt.Errorf("key %q is given twice", path(k))
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
