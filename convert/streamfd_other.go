//go:build !unix

package convert

import (
	"errors"
	"os"
)

// openFD is not available here: a descriptor named as a path is refused.
func openFD(fd int, name string) (*os.File, func() error, error) {
	return nil, nil, &os.PathError{Op: "open", Path: name, Err: errors.ErrUnsupported}
}
