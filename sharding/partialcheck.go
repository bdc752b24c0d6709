package sharding

import (
	"fmt"
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// head is the manifest of the job without its shards, devices and sources: what
// every process of one conversion writes alike.
func (j *shardJob) head() *manifest.Manifest {
	m := &manifest.Manifest{Format: manifest.Format, Source: j.opt.Source, To: j.opt.To, Checksum: j.sum.Name(),
		Mesh: manifest.Mesh{Axes: j.opt.Mesh.Axes, Sizes: j.opt.Mesh.Sizes, Devices: j.opt.Mesh.Devices}}
	if j.opt.Processes > 1 {
		m.Process = fmt.Sprintf("%d/%d", j.opt.Process, j.opt.Processes)
	}
	for _, t := range j.tensors {
		m.Tensors = append(m.Tensors, t.manifest())
	}
	return m
}

// manifest is t's entry in the manifest, without its shards.
func (t *tensorJob) manifest() manifest.Tensor {
	return manifest.Tensor{Name: t.t.Name, DType: t.t.DType.String(), Shape: nonNil(t.t.Shape),
		SourceFile: filepath.Base(t.t.File.Path), Spec: t.pl.Spec.String(),
		ShardShape: nonNil(t.pl.ShardDims), Layout: t.dst.String(), Shards: []manifest.Shard{}}
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
	mine := manifest.PartialName(j.opt.Process, j.opt.Processes)
	names := slices.Sorted(maps.Keys(partials))
	ours := j.head()
	for _, name := range names {
		if name == mine {
			continue
		}
		if err := partials[name].err; err != nil {
			return &manifest.ConflictError{Out: out, Partial: name, Err: err}
		}
		p, err := manifest.Parse(partials[name].data)
		if err != nil {
			return &manifest.ConflictError{Out: out, Partial: name, Err: err}
		}
		if d := manifest.Conflict(p, ours, j.opt.Processes); d != nil {
			return &manifest.ConflictError{Out: out, Partial: name, Diff: *d}
		}
	}
	return nil
}

// dirPartials reads the partial manifests in dir (at most MaxManifestBytes each).
func dirPartials(dir string) map[string]partialText {
	ents, _ := os.ReadDir(dir) // none in a new directory
	out := map[string]partialText{}
	for _, e := range ents {
		if manifest.IsPartialName(e.Name()) {
			b, err := readLimited(filepath.Join(dir, e.Name()), "manifest", manifest.MaxBytes)
			out[e.Name()] = partialText{b, err}
		}
	}
	return out
}
