package report

import (
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// DefaultLayoutError is a generation's default layout that an array cannot have: Gen
// has no default layout for the array Shape (NoDefault), or its default layout Shape
// does not compile. Err is the cause, which it unwraps to.
type DefaultLayoutError struct {
	Gen       tpu.Generation
	Shape     layout.Shape
	NoDefault bool
	Err       error
}

func (e *DefaultLayoutError) Error() string { return e.Words(nil, nil) }
func (e *DefaultLayoutError) Unwrap() error { return e.Err }

// Words is the message with its cause worded by cause (nil: by its Error()); it names
// no settings, so name is not used.
func (e *DefaultLayoutError) Words(name func(setting string) string, cause func(error) string) string {
	c := e.Err.Error()
	if cause != nil {
		c = cause(e.Err)
	}
	if e.NoDefault {
		return fmt.Sprintf("no default %s layout for %s: %s", e.Gen, e.Shape, c)
	}
	return fmt.Sprintf("default %s layout %s: %s", e.Gen, e.Shape, c)
}
