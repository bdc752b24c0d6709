package sharding

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ConflictError is a --process run's refusal to write where a partial manifest of
// another conversion already is: the processes share the files of replicated shards,
// so it would rewrite images that the other conversion's manifest describes. Field
// names what differs (such as "checksum" or `tensor "w": layout`), Theirs and Ours
// its value in Partial and in this run.
type ConflictError struct {
	Out, Partial        string // the output directory or prefix, and the partial manifest's name
	Field, Theirs, Ours string
	Err                 error // reading Partial failed (Field is then empty)
}

func (e *ConflictError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("sharding: %s holds %s, which cannot be read, so this process cannot tell whether it would overwrite another conversion's images: %v", e.Out, e.Partial, e.Err)
	}
	return fmt.Sprintf("sharding: %s holds %s, of another conversion: %s is %s there but %s in this run; nothing was written (give the processes the same options, or write to a new place)",
		e.Out, e.Partial, e.Field, e.Theirs, e.Ours)
}

func (e *ConflictError) Unwrap() error { return e.Err }

// head is the manifest of the job without its shards, devices and sources: what
// every process of one conversion writes alike.
func (j *shardJob) head() *Manifest {
	m := &Manifest{Format: ManifestFormat, Source: j.opt.Source, To: j.opt.To, Checksum: j.sum.name,
		Mesh: ManifestMesh{Axes: j.opt.Mesh.Axes, Sizes: j.opt.Mesh.Sizes, Devices: j.opt.Mesh.Devices}}
	if j.opt.Processes > 1 {
		m.Process = fmt.Sprintf("%d/%d", j.opt.Process, j.opt.Processes)
	}
	for _, t := range j.tensors {
		m.Tensors = append(m.Tensors, t.manifest())
	}
	return m
}

// manifest is t's entry in the manifest, without its shards.
func (t *tensorJob) manifest() ManifestTensor {
	return ManifestTensor{Name: t.t.Name, DType: t.t.DType.String(), Shape: nonNil(t.t.Shape),
		SourceFile: filepath.Base(t.t.File.Path), Spec: t.pl.Spec.String(),
		ShardShape: nonNil(t.pl.ShardDims), Layout: t.dst.String(), Shards: []ManifestShard{}}
}

// partialText is a partial manifest as read: its bytes, or the error reading them.
type partialText struct {
	data []byte
	err  error
}

// checkPartials checks, before a --process run writes, the partial manifests already
// in out (by name): each must be of this conversion. This process's own, from an
// earlier run, is not checked: the run replaces it.
func (j *shardJob) checkPartials(out string, partials map[string]partialText) error {
	mine := PartialName(j.opt.Process, j.opt.Processes)
	names := slices.Sorted(maps.Keys(partials))
	ours := j.head()
	for _, name := range names {
		if name == mine {
			continue
		}
		conflict := func(field string, theirs, ours any) error {
			return &ConflictError{Out: out, Partial: name, Field: field, Theirs: fmt.Sprint(theirs), Ours: fmt.Sprint(ours)}
		}
		if err := partials[name].err; err != nil {
			return &ConflictError{Out: out, Partial: name, Err: err}
		}
		p, err := ParseManifest(partials[name].data)
		if err != nil {
			return &ConflictError{Out: out, Partial: name, Err: err}
		}
		if _, n, ok := partialProcess(p.Process); !ok || n != j.opt.Processes {
			return conflict("the process count (\"process\": \"I/N\")", p.Process, ours.Process)
		}
		if err := sameConversion(p, ours, conflict); err != nil {
			return err
		}
	}
	return nil
}

// partialProcess reads a partial manifest's "I/N".
func partialProcess(s string) (i, n int, ok bool) {
	_, err := fmt.Sscanf(s, "%d/%d", &i, &n)
	return i, n, err == nil && fmt.Sprintf("%d/%d", i, n) == s && n > 1 && i >= 0 && i < n
}

// sameConversion compares what p and ours say of the conversion, the first
// difference as conflict(field, p's, ours).
func sameConversion(p, ours *Manifest, conflict func(field string, theirs, ours any) error) error {
	switch {
	case p.Checksum != ours.Checksum:
		return conflict("checksum", p.Checksum, ours.Checksum)
	case p.To != ours.To:
		return conflict("--to", q(p.To), q(ours.To))
	case p.Source != ours.Source:
		return conflict("source", q(p.Source), q(ours.Source))
	case !slices.Equal(p.Mesh.Axes, ours.Mesh.Axes) || !slices.Equal(p.Mesh.Sizes, ours.Mesh.Sizes):
		return conflict("mesh", p.Mesh.String(), ours.Mesh.String())
	case !slices.Equal(p.Mesh.Devices, ours.Mesh.Devices):
		return conflict("the mesh's devices", deviceText(p.Mesh.Devices), deviceText(ours.Mesh.Devices))
	}
	theirs := map[string]ManifestTensor{}
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

func allListed(theirs map[string]ManifestTensor, ours []ManifestTensor) bool {
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

// dirPartials reads the partial manifests in dir (at most MaxManifestBytes each).
func dirPartials(dir string) map[string]partialText {
	ents, _ := os.ReadDir(dir) // none in a new directory
	out := map[string]partialText{}
	for _, e := range ents {
		if partialRE.MatchString(e.Name()) {
			b, err := readLimited(filepath.Join(dir, e.Name()), "manifest", MaxManifestBytes)
			out[e.Name()] = partialText{b, err}
		}
	}
	return out
}
