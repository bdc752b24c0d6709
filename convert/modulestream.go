package convert

import (
	"io"
	"strings"

	"github.com/tpulayout/tpulayout/hlo"
)

// ReadModuleFrom reads and parses HLO text from r, a stream such as standard input,
// named name in messages: at most MaxModuleBytes, as ReadModule reads a file.
func ReadModuleFrom(r io.Reader, name string) (*hlo.Module, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxModuleBytes+1))
	if err != nil {
		return nil, inputf("cannot read MODULE %s: %s", name, err)
	}
	if int64(len(b)) > MaxModuleBytes {
		return nil, inputf("cannot read MODULE %s: it is larger than the limit of %s for a text file", name, SizeText(MaxModuleBytes))
	}
	m, err := hlo.Parse(b)
	if err != nil {
		return nil, inputf("%s: %s", name, strings.TrimPrefix(err.Error(), "hlo: "))
	}
	return m, nil
}
