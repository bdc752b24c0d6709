package convert

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/hlo"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
)

// WithModule reads and parses the HLO text file at path, as [ReadModule] does (the same
// size limit, the same errors), and calls f with the module, returning what f returns.
//
// A regular file is mapped into memory where the system allows, rather than copied:
// the module's strings (names, opcodes, operands, attribute values) then point into
// the mapping, which is unmapped when f returns. So f must not keep the module, or a
// string taken from it, past its return, nor return an error that holds one; what
// outlives f is copied (a [layout.Shape] holds none of the text, and a message made
// with fmt is a copy). A file truncated by another process while it is mapped is
// returned as an error, not a crash, as long as only f's goroutine reads the module.
// A stream, an empty file, or a file that cannot be mapped is read as ReadModule
// reads it.
func WithModule(path string, f func(*hlo.Module) error) error {
	text, err := mapText(path)
	if errors.Is(err, buffer.ErrNotMapped) {
		m, err := ReadModule(path)
		if err != nil {
			return err
		}
		return f(m)
	}
	if err != nil {
		return err
	}
	defer text.Close()
	err = buffer.GuardFaults("MODULE "+path, func() error {
		if i := bytes.IndexByte(text.Data, 0); i >= 0 {
			return inputf("cannot read MODULE %s: byte %d is NUL: it is not a text file", path, i)
		}
		m, err := parseModule(path, text.Data)
		if err != nil {
			return err
		}
		return f(m)
	}, text)
	if errors.Is(err, buffer.ErrFault) {
		now := "it is gone"
		if st, serr := os.Stat(path); serr == nil {
			now = "it has " + report.Plural(st.Size(), "byte") + " now"
		}
		return inputf("cannot read MODULE %s: it shrank or failed while it was read (%s)", path, now)
	}
	return err
}

// mapText maps the regular file at path, of at most MaxModuleBytes and at least one
// byte, read-only; any other file is an error wrapping buffer.ErrNotMapped, for the
// caller to read it instead (and report what is wrong with it as a read does).
func mapText(path string) (*buffer.Buffer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, buffer.ErrNotMapped
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 || st.Size() > MaxModuleBytes {
		return nil, buffer.ErrNotMapped
	}
	sh, err := layout.Parse("u8[" + strconv.FormatInt(st.Size(), 10) + "]{0}")
	if err != nil {
		return nil, err
	}
	return buffer.MapFile(f, sh)
}

// parseModule parses the text of the module file at path.
func parseModule(path string, text []byte) (*hlo.Module, error) {
	m, err := hlo.Parse(text)
	if err != nil {
		return nil, inputf("%s: %s", path, strings.TrimPrefix(err.Error(), "hlo: "))
	}
	return m, nil
}
