package manifest

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// PartialName is the file name of process i of n's manifest.
func PartialName(i, n int) string { return fmt.Sprintf("manifest.process-%d-of-%d.json", i, n) }

var partialRE = regexp.MustCompile(`^manifest\.process-(\d+)-of-(\d+)\.json$`)

// IsPartialName reports whether name has the form of a partial manifest's file name,
// manifest.process-I-of-N.json (whether or not I and N make sense).
func IsPartialName(name string) bool { return partialRE.MatchString(name) }

// Files are the shard files that a merge checks, wherever they are: a directory's
// files, a bucket prefix's objects.
type Files interface {
	// Check returns what is wrong with the listed file rel, as a phrase after its
	// name ("is missing"), or "" if nothing: its size and, with hash, its checksum
	// (see Shard.NewHash and Shard.SumDiffers).
	Check(rel string, s Shard, hash bool) string
	// Unlisted returns the first file there that listed does not hold, other than the
	// partial manifests ("" if none).
	Unlisted(listed map[string]bool) string
	// Has reports whether the file rel is there.
	Has(rel string) bool
}

// Dir is the output of a conversion as Merge reads and writes it: its shard files,
// and the manifests at its top.
type Dir interface {
	Files
	// List returns the names of the entries at the top.
	List() ([]string, error)
	// ReadFile returns the contents of the file name at the top (a partial manifest).
	ReadFile(name string) ([]byte, error)
	// WriteFile writes the file name at the top whole, replacing any old one at once.
	WriteFile(name string, data []byte) error
	// Remove removes the file name at the top.
	Remove(name string) error
}

// Namer is a Dir that names the files at its top in messages itself (a bucket
// prefix's objects, named by URL); a file of any other Dir named as messages name
// the Dir is filepath.Join(name, file).
type Namer interface {
	Name(file string) string
}

// fileName is the file at the top of d, named name, as messages name it.
func fileName(d Dir, name, file string) string {
	if n, ok := d.(Namer); ok {
		return n.Name(file)
	}
	return filepath.Join(name, file)
}

// Progress hears how far the check of the shard files has got, in bytes.
type Progress interface {
	Total(bytes int64)
	Add(bytes int64)
}

// MergeOptions change what Merge checks.
type MergeOptions struct {
	// Quick skips re-hashing the shard files: their existence and sizes are still
	// checked.
	Quick bool
	// Progress, when set, hears how far the check of the shard files has got.
	Progress Progress
}

// Merge combines the partial manifests in d of the processes of a conversion (all n
// of them, for one n) into manifest.json and returns it. name is d as messages name
// it. It checks that the partial manifests agree on the source, target, checksum and
// mesh, that every device is covered once, and that shards written by several
// processes have the same size and checksum; then it checks d against the merged
// manifest: every listed file is there with its listed size and (unless Quick)
// checksum, each tensor's shards are where its spec puts them, and nothing is there
// that no manifest lists. It then writes manifest.json and removes the partial
// manifests, so that d equals the output of a one-process conversion.
func Merge(name string, d Dir, opt MergeOptions) (*Manifest, error) {
	parts, err := partialNames(name, d)
	if err != nil {
		return nil, err
	}
	ms := make([]*Manifest, len(parts))
	for i, p := range parts {
		data, err := d.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if ms[i], err = Parse(data); err != nil {
			return nil, &MergeError{Dir: name, Partial: p, Msg: "manifest " + fileName(d, name, p), Err: err}
		}
	}
	out, err := join(parts, ms)
	if err != nil {
		return nil, err
	}
	if err := checkFiles(name, d, out, opt, parts); err != nil {
		return nil, err
	}
	js, err := out.Marshal()
	if err != nil {
		return nil, err
	}
	if err := d.WriteFile(FileName, js); err != nil {
		return nil, err
	}
	for _, p := range parts {
		d.Remove(p) // what is left is listed by no manifest: a later merge says so
	}
	return out, nil
}

// partialNames returns the partial manifests in d, of process 0 … n-1 in order: all
// of one n, none missing.
func partialNames(name string, d Dir) ([]string, error) {
	ents, err := d.List()
	if err != nil {
		return nil, err
	}
	parts := map[int]string{}
	n := 0
	for _, e := range ents {
		sm := partialRE.FindStringSubmatch(e)
		if sm == nil {
			continue
		}
		i, err1 := strconv.Atoi(sm[1])
		k, err2 := strconv.Atoi(sm[2])
		if err1 != nil || err2 != nil || k < 1 || i >= k || sm[1] != strconv.Itoa(i) || sm[2] != strconv.Itoa(k) {
			return nil, &MergeError{Dir: name, Partial: e, Msg: fmt.Sprintf("%s holds %s, which no process writes (process I of N is 0 ≤ I < N); remove it", name, e)}
		}
		if n != 0 && k != n {
			return nil, &MergeError{Dir: name, Msg: fmt.Sprintf("%s holds partial manifests of %d and of %d processes; remove the stale ones", name, n, k)}
		}
		n = k
		parts[i] = e
	}
	if n == 0 {
		return nil, &NoPartialsError{Dir: name, Merged: d.Has(FileName)}
	}
	var missing []string
	out := make([]string, n)
	for i := range n {
		if out[i] = parts[i]; out[i] == "" {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return nil, &MergeError{Dir: name, Msg: fmt.Sprintf("%s lacks the manifests of process(es) %s of %d: they have not finished", name, strings.Join(missing, ", "), n)}
	}
	return out, nil
}

// merged is a merge under way: the tensors and shards so far, and which partial
// manifest listed each first.
type merged struct {
	out        *Manifest
	tensors    map[string]*Tensor
	shards     map[string]map[string]*Shard // by tensor, then file
	tensorFrom map[string]string
	shardFrom  map[[2]string]string // by tensor and file
	devices    map[int]bool
}

// join merges the partial manifests ms, named parts, into one, normalized.
func join(parts []string, ms []*Manifest) (*Manifest, error) {
	n := len(ms)
	g := &merged{tensors: map[string]*Tensor{}, shards: map[string]map[string]*Shard{},
		tensorFrom: map[string]string{}, shardFrom: map[[2]string]string{}, devices: map[int]bool{}}
	for i, p := range ms {
		if p.Process != fmt.Sprintf("%d/%d", i, n) {
			return nil, &MergeError{Partial: parts[i], Msg: fmt.Sprintf("%s says it is process %q, want %d/%d", parts[i], p.Process, i, n)}
		}
		if err := g.add(parts[0], parts[i], p); err != nil {
			return nil, err
		}
	}
	out := g.out
	if len(g.devices) != len(out.Mesh.Devices) {
		return nil, &MergeError{Msg: fmt.Sprintf("the partial manifests cover %d of the mesh's %d devices", len(g.devices), len(out.Mesh.Devices))}
	}
	for name, mt := range g.tensors {
		for _, s := range g.shards[name] {
			mt.Shards = append(mt.Shards, *s)
		}
		out.Tensors = append(out.Tensors, *mt)
	}
	out.Normalize()
	for _, t := range out.Tensors {
		covered := 0
		for _, s := range t.Shards {
			covered += len(s.Devices)
		}
		if covered != len(out.Mesh.Devices) {
			return nil, &MergeError{Tensor: t.Name, Msg: fmt.Sprintf("tensor %q has shards for %d of %d devices after the merge", t.Name, covered, len(out.Mesh.Devices))}
		}
	}
	return out, nil
}

// add merges partial manifest p, called part, into g; first names the first one.
func (g *merged) add(first, part string, p *Manifest) error {
	if g.out == nil {
		g.out = &Manifest{Format: p.Format, Source: p.Source, To: p.To, Sources: p.Sources, Checksum: p.Checksum, Mesh: p.Mesh}
	} else if d := headDiffs(g.out, p); len(d) > 0 {
		return &MismatchError{First: first, Second: part, Diffs: d}
	}
	for _, d := range p.Devices {
		if g.devices[d.ID] {
			return &MergeError{Partial: part, Msg: fmt.Sprintf("device %d appears in two partial manifests", d.ID)}
		}
		g.devices[d.ID] = true
		g.out.Devices = append(g.out.Devices, Device{ID: d.ID, Coords: d.Coords})
	}
	for _, t := range p.Tensors {
		if err := g.addTensor(part, t); err != nil {
			return err
		}
	}
	return nil
}

// addTensor merges tensor t of partial manifest part into g.
func (g *merged) addTensor(part string, t Tensor) error {
	mt, ok := g.tensors[t.Name]
	if !ok {
		c := t
		c.Shards = nil
		mt = &c
		g.tensors[t.Name] = mt
		g.tensorFrom[t.Name] = part
		g.shards[t.Name] = map[string]*Shard{}
	} else if d := tensorDiffs(mt, &t); len(d) > 0 {
		return &MismatchError{First: g.tensorFrom[t.Name], Second: part, Tensor: t.Name, Diffs: d}
	}
	for _, s := range t.Shards {
		prev, ok := g.shards[t.Name][s.File]
		if !ok {
			c := s
			c.Devices = slices.Clone(s.Devices)
			g.shards[t.Name][s.File] = &c
			g.shardFrom[[2]string{t.Name, s.File}] = part
			continue
		}
		if prev.SHA256 != s.SHA256 || prev.CRC32C != s.CRC32C || prev.Bytes != s.Bytes {
			var d []Difference
			d = differ(d, "bytes", prev.Bytes, s.Bytes)
			d = differ(d, "sha256", prev.SHA256, s.SHA256)
			d = differ(d, "crc32c", prev.CRC32C, s.CRC32C)
			return &MismatchError{First: g.shardFrom[[2]string{t.Name, s.File}], Second: part, Tensor: t.Name, Shard: &s, Diffs: d}
		}
		prev.Devices = append(prev.Devices, s.Devices...)
	}
	return nil
}

// headDiffs is what a and b say differently of the conversion as a whole.
func headDiffs(a, b *Manifest) []Difference {
	var d []Difference
	d = differ(d, "checksum", a.Checksum, b.Checksum)
	d = differ(d, "source", a.Source, b.Source)
	d = differ(d, "To", a.To, b.To)
	for k := range max(len(a.Sources), len(b.Sources)) {
		var x, y Source
		if k < len(a.Sources) {
			x = a.Sources[k]
		}
		if k < len(b.Sources) {
			y = b.Sources[k]
		}
		if x != y {
			d = append(d, Difference{Field: "sources", Theirs: fmt.Sprintf("%s: %d bytes, fingerprint %.12s…", x.File, x.Bytes, x.Fingerprint),
				Ours: fmt.Sprintf("%s: %d bytes, %.12s…", y.File, y.Bytes, y.Fingerprint)})
			break
		}
	}
	if !sameMesh(a.Mesh, b.Mesh) {
		d = append(d, Difference{Field: "mesh", Theirs: a.Mesh.String(), Ours: b.Mesh.String()})
	}
	return d
}

// tensorDiffs is what a and b say differently of one tensor, but for its shards.
func tensorDiffs(a, b *Tensor) []Difference {
	var d []Difference
	d = differ(d, "dtype", a.DType, b.DType)
	d = differ(d, "shape", a.Shape, b.Shape)
	d = differ(d, "spec", a.Spec, b.Spec)
	d = differ(d, "layout", a.Layout, b.Layout)
	return d
}

func sameMesh(a, b Mesh) bool {
	return slices.Equal(a.Axes, b.Axes) && slices.Equal(a.Sizes, b.Sizes) && slices.Equal(a.Devices, b.Devices)
}

// differ appends the difference of field when a and b print differently.
func differ(d []Difference, field string, a, b any) []Difference {
	if x, y := fmt.Sprint(a), fmt.Sprint(b); x != y {
		d = append(d, Difference{Field: field, Theirs: x, Ours: y})
	}
	return d
}
