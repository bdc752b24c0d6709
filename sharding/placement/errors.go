package placement

import (
	"fmt"
	"strings"
)

// The package's errors print as the conversion prints them, each starting "sharding: "
// where the message stands alone.

// SyntaxError is text that does not read as a mesh, a device list or a PartitionSpec.
type SyntaxError struct {
	What  string // "mesh", "device list" or "spec"
	Input string // the text as given
	Pos   int    // the byte of Input where reading failed, or -1 when Msg says where
	Msg   string // what is wrong
	Err   error  // the cause (such as strconv's *NumError), or nil
}

func (e *SyntaxError) Error() string {
	if e.Pos >= 0 {
		return fmt.Sprintf("sharding: bad %s %q: at byte %d: %s", e.What, e.Input, e.Pos, e.Msg)
	}
	return fmt.Sprintf("sharding: bad %s %q: %s", e.What, e.Input, e.Msg)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// MeshError is a mesh that cannot be built as given (NewMesh), or split as asked
// (Mesh.ProcessDevices): Mesh is the mesh as ParseMesh reads it ("" when it has no
// axes), Msg the message.
type MeshError struct {
	Mesh string
	Msg  string
}

func (e *MeshError) Error() string { return "sharding: " + e.Msg }

// SpecError is a spec that does not fit a mesh or an array's rank (Spec.Check): Axis
// names the mesh axis at fault ("" for the rank), Msg says what follows the spec.
type SpecError struct {
	Spec Spec
	Axis string
	Msg  string
}

func (e *SpecError) Error() string { return "sharding: spec " + e.Spec.String() + " " + e.Msg }

// RulesError is a rules file's text that ParseRules refuses: Rule is the rule at fault
// (1-based; 0 for the file as a whole or its default), Msg says which and what, and
// Err, when set, is the cause (the JSON decoder's, the regular expression's or the
// spec's error), printed after Msg.
type RulesError struct {
	Rule int
	Msg  string
	Err  error
	hint string // printed after Err
}

func (e *RulesError) Error() string {
	if e.Err == nil {
		return e.Msg
	}
	return e.Msg + ": " + e.Err.Error() + e.hint
}

func (e *RulesError) Unwrap() error { return e.Err }

// UnmatchedError is a tensor that no rule matches, of rules without a default.
type UnmatchedError struct {
	Tensor string
}

func (e *UnmatchedError) Error() string {
	return fmt.Sprintf("sharding: tensor %q matches no rule and the rules have no default", e.Tensor)
}

// IndivisibleError is a dim that the mesh axes its spec shards it over do not divide
// evenly: Place refuses it as jax.device_put refuses such a NamedSharding
// (IndivisibleError there too).
type IndivisibleError struct {
	Spec  Spec
	Dim   int      // the first such dim
	Size  int64    // its size
	Count int      // the pieces the spec cuts it into: the product of Axes' sizes
	Axes  []string // the dim's mesh axes as "name(size)", majormost first
}

func (e *IndivisibleError) Error() string {
	return fmt.Sprintf("sharding: dim %d of size %d is not divisible by %d, the product of the mesh axes %s that spec %s shards it over",
		e.Dim, e.Size, e.Count, strings.Join(e.Axes, "×"), e.Spec)
}
