package manifest

import (
	"fmt"
	"slices"
	"strings"
)

// ConflictError is a run's refusal, as process I of N, to write where a partial manifest of
// another conversion already is: the processes share the files of replicated shards,
// so it would rewrite images that the other conversion's manifest describes. Diff
// says what differs (see Conflict): its Theirs is Partial's, its Ours this run's.
type ConflictError struct {
	Out, Partial string // the output directory or prefix, and the partial manifest's name
	Diff         Difference
	Err          error // reading Partial failed (Diff is then empty)
}

func (e *ConflictError) Error() string { return e.Words(Label, nil) }

// Words is the error's message with the settings named by label (see Label); it makes
// the error an errtext.Worded. Its cause is quoted whole.
func (e *ConflictError) Words(label func(field string) string, _ func(error) string) string {
	if e.Err != nil {
		return fmt.Sprintf("sharding: %s holds %s, which cannot be read, so this process cannot tell whether it would overwrite another conversion's images: %v", e.Out, e.Partial, e.Err)
	}
	return fmt.Sprintf("sharding: %s holds %s, of another conversion: %s is %s there but %s in this run; nothing was written (give the processes the same options, or write to a new place)",
		e.Out, e.Partial, label(e.Diff.Field), e.Diff.Theirs, e.Diff.Ours)
}

func (e *ConflictError) Unwrap() error { return e.Err }

// partialProcess reads a partial manifest's "I/N".
func partialProcess(s string) (i, n int, ok bool) {
	_, err := fmt.Sscanf(s, "%d/%d", &i, &n)
	return i, n, err == nil && fmt.Sprintf("%d/%d", i, n) == s && n > 1 && i >= 0 && i < n
}

// Conflict returns the first thing that p, a partial manifest found where a run as
// one of processes processes is to write, and ours, that run's manifest without its
// shards, devices and sources, say differently of the conversion; nil when they agree.
// A Difference's Field is a phrase ("the mesh's devices", `tensor "w": layout`), or
// "To" for the target.
func Conflict(p, ours *Manifest, processes int) *Difference {
	if _, n, ok := partialProcess(p.Process); !ok || n != processes {
		return conflict("the process count (\"process\": \"I/N\")", p.Process, ours.Process)
	}
	switch {
	case p.Checksum != ours.Checksum:
		return conflict("checksum", p.Checksum, ours.Checksum)
	case p.To != ours.To:
		return conflict("To", q(p.To), q(ours.To))
	case p.Source != ours.Source:
		return conflict("source", q(p.Source), q(ours.Source))
	case !slices.Equal(p.Mesh.Axes, ours.Mesh.Axes) || !slices.Equal(p.Mesh.Sizes, ours.Mesh.Sizes):
		return conflict("mesh", p.Mesh.String(), ours.Mesh.String())
	case !slices.Equal(p.Mesh.Devices, ours.Mesh.Devices):
		return conflict("the mesh's devices", deviceText(p.Mesh.Devices), deviceText(ours.Mesh.Devices))
	}
	theirs := map[string]Tensor{}
	for _, t := range p.Tensors {
		theirs[t.Name] = t
	}
	var names []string
	for _, t := range ours.Tensors {
		names = append(names, q(t.Name))
		pt, ok := theirs[t.Name]
		if !ok {
			continue
		}
		for _, f := range [][3]any{
			{"dtype", pt.DType, t.DType},
			{"shape", pt.Shape, t.Shape},
			{"spec", pt.Spec, t.Spec},
			{"layout", pt.Layout, t.Layout},
		} {
			if a, b := fmt.Sprint(f[1]), fmt.Sprint(f[2]); a != b {
				return conflict(fmt.Sprintf("tensor %q: %s", t.Name, f[0]), a, b)
			}
		}
	}
	if len(p.Tensors) != len(ours.Tensors) || len(theirs) != len(ours.Tensors) || !allListed(theirs, ours.Tensors) {
		var pn []string
		for _, t := range p.Tensors {
			pn = append(pn, q(t.Name))
		}
		return conflict("the tensors", strings.Join(pn, ", "), strings.Join(names, ", "))
	}
	return nil
}

// conflict is the Difference of field.
func conflict(field string, theirs, ours any) *Difference {
	return &Difference{Field: field, Theirs: fmt.Sprint(theirs), Ours: fmt.Sprint(ours)}
}

func allListed(theirs map[string]Tensor, ours []Tensor) bool {
	for _, t := range ours {
		if _, ok := theirs[t.Name]; !ok {
			return false
		}
	}
	return true
}

func q(s string) string { return fmt.Sprintf("%q", s) }

// deviceText is a device list as a manifest prints it, briefly.
func deviceText(d DeviceIDs) string {
	b, err := d.MarshalJSON()
	if err != nil || len(b) > 80 {
		return fmt.Sprintf("%d ids", len(d))
	}
	return string(b)
}
