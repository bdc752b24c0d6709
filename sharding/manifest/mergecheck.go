package manifest

import (
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/sharding/placement"
)

// checkFiles checks the merged manifest m against d, called name (see Merge):
// placements, every listed file's size and checksum, and no file that no manifest
// lists. parts are the partial manifests' names.
func checkFiles(name string, d Dir, m *Manifest, opt MergeOptions, parts []string) error {
	mesh, err := placement.NewMesh(m.Mesh.Axes, m.Mesh.Sizes, m.Mesh.Devices)
	if err != nil {
		return &MergeError{Dir: name, Msg: "the partial manifests' mesh", Err: err}
	}
	listed := map[string]bool{}
	for _, p := range parts {
		listed[p] = true
	}
	prog := opt.Progress
	if prog == nil {
		prog = noProgress{}
	}
	prog.Total(m.ShardBytes())
	for i := range m.Tensors {
		mt := &m.Tensors[i]
		dst, err := layout.Parse(mt.Layout)
		if err != nil {
			return &MergeError{Dir: name, Tensor: mt.Name, Msg: fmt.Sprintf("tensor %q: layout %s", mt.Name, mt.Layout), Err: err}
		}
		spec, err := placement.ParseSpec(mt.Spec)
		if err != nil {
			return &MergeError{Dir: name, Tensor: mt.Name, Msg: fmt.Sprintf("tensor %q", mt.Name), Err: err}
		}
		pl, err := placement.Place(mesh, spec, mt.Shape)
		if err != nil {
			return &MergeError{Dir: name, Tensor: mt.Name, Msg: fmt.Sprintf("tensor %q", mt.Name), Err: err}
		}
		dir, err := CheckListed(mt, pl, dst)
		if err != nil {
			return &MergeError{Dir: name, Tensor: mt.Name, Msg: fmt.Sprintf("tensor %q", mt.Name), Err: err}
		}
		if listed[dir] {
			return &MergeError{Dir: name, Tensor: mt.Name, Msg: fmt.Sprintf("two tensors list files in %s/", dir)}
		}
		listed[dir] = true
		for _, ms := range mt.Shards {
			listed[ms.File] = true
			if msg := d.Check(ms.File, ms, !opt.Quick); msg != "" {
				return &MergeError{Dir: name, Tensor: mt.Name, Msg: fmt.Sprintf("tensor %q: shard file %s %s", mt.Name, ms.File, msg)}
			}
			prog.Add(ms.Bytes)
		}
	}
	if f := d.Unlisted(listed); f != "" {
		return &MergeError{Dir: name, Msg: fmt.Sprintf("%s holds %s, which no partial manifest lists: a file of another conversion, or one being written; remove it", name, f)}
	}
	return nil
}

type noProgress struct{}

func (noProgress) Total(int64) {}
func (noProgress) Add(int64)   {}

// ShardBytes is the size of every shard file the manifest lists.
func (m *Manifest) ShardBytes() int64 {
	var n int64
	for _, t := range m.Tensors {
		for _, s := range t.Shards {
			n += s.Bytes
		}
	}
	return n
}
