package manifest

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/sharding/internal/strictjson"
	"github.com/tpulayout/tpulayout/sharding/placement"
)

// Format names the manifest's format and version.
const Format = "tpulayout-sharded-1"

// FileName is the manifest of a whole conversion in its directory.
const FileName = "manifest.json"

// MaxBytes is the most bytes Read takes: far above any real manifest (one of
// 1,048,576 devices that all hold one shard is a few KB, one that lists each
// device's files about 100 bytes a device), low enough that /dev/zero or a mistyped
// path fails at once instead of filling memory.
const MaxBytes = 512 << 20

// Manifest describes a sharded conversion: the mesh, each device's files and each
// tensor's shards. Checksum names the algorithm of the image files' checksums:
// CRC32C or SHA256.
type Manifest struct {
	Format   string   `json:"format"`
	Source   string   `json:"source"`
	To       string   `json:"to"`
	Sources  []Source `json:"sources,omitempty"` // the checkpoint's files as read
	Checksum string   `json:"checksum"`
	Process  string   `json:"process,omitempty"` // "I/N" in a partial manifest
	Mesh     Mesh     `json:"mesh"`
	Devices  []Device `json:"devices,omitempty"` // left out for meshes of over 64 devices
	Tensors  []Tensor `json:"tensors"`
}

// Mesh is the mesh: axes majormost first, and the device ids in row-major
// order of the axes.
type Mesh struct {
	Axes    []string  `json:"axes"`
	Sizes   []int     `json:"sizes"`
	Devices DeviceIDs `json:"devices"`
}

// String prints the mesh's axes and sizes as placement.ParseMesh reads them:
// "data=2,model=4".
func (m Mesh) String() string {
	return (&placement.Mesh{Axes: m.Axes, Sizes: m.Sizes}).String()
}

// Device is one device: its id, mesh coordinates and the image files it
// loads, one per tensor in the order of Tensors.
type Device struct {
	ID     int      `json:"id"`
	Coords []int    `json:"coords"`
	Files  []string `json:"files"`
}

// Tensor is one tensor: its source, spec and device layout, and its shards.
type Tensor struct {
	Name       string  `json:"name"`
	DType      string  `json:"dtype"` // the source's
	Shape      []int64 `json:"shape"` // global
	SourceFile string  `json:"source_file"`
	Spec       string  `json:"spec"`
	ShardShape []int64 `json:"shard_shape"`
	Layout     string  `json:"layout"` // of each shard's image
	Shards     []Shard `json:"shards"`
}

// Shard is one distinct shard, written once for all the devices that hold
// it: its position, index ranges [start, end) per dim, devices, file, size and
// checksum, of the algorithm the manifest names (see Checksum).
type Shard struct {
	Index   []int      `json:"index"`
	Ranges  [][2]int64 `json:"ranges"`
	Devices DeviceIDs  `json:"devices"`
	File    string     `json:"file"`
	Bytes   int64      `json:"bytes"`
	SHA256  string     `json:"sha256,omitempty"` // when the manifest's checksum is sha256
	CRC32C  string     `json:"crc32c,omitempty"` // when it is crc32c (8 hex digits, big-endian)
}

// Read reads a manifest (at most MaxBytes) from r and parses it: see Parse.
func Read(r io.Reader) (*Manifest, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxBytes {
		return nil, &FormatError{Msg: fmt.Sprintf("more than the %d bytes a manifest may have", MaxBytes)}
	}
	return Parse(data)
}

// Source is one file of the source checkpoint as a process read it: its size
// and a fingerprint of its contents. Merge compares them between processes, so that
// a checkpoint replaced between runs (same names and shapes, other data) is caught.
type Source struct {
	File        string `json:"file"`
	Bytes       int64  `json:"bytes"`
	Fingerprint string `json:"fingerprint"`
}

// Parse parses a manifest's text. A key it does not know, a key given twice,
// another format, a checksum other than crc32c or sha256, a tensor listed twice, or a
// shard whose checksum is not one well-formed sum of the manifest's algorithm are errors: a manifest is what merge,
// verify and gather trust, so nothing in it may be silently ignored.
func Parse(data []byte) (*Manifest, error) {
	var m Manifest
	if err := strictjson.Decode(data, &m); err != nil {
		return nil, &FormatError{Msg: "not a valid manifest", Err: err}
	}
	if m.Format != Format {
		return nil, &FormatError{Msg: fmt.Sprintf("format %q, want %q", m.Format, Format)}
	}
	if err := m.checkSums(); err != nil {
		return nil, err
	}
	if err := m.checkNames(); err != nil {
		return nil, err
	}
	if m.Devices == nil {
		if err := m.deviceTable(); err != nil {
			return nil, err
		}
	} else if _, err := placement.NewMesh(m.Mesh.Axes, m.Mesh.Sizes, m.Mesh.Devices); err != nil {
		// Checked here too: Marshal leaves an empty device table out, and the
		// manifest it prints must parse again (FuzzManifestGather found one that did not).
		return nil, &FormatError{Msg: "mesh", Err: err}
	}
	return &m, nil
}

// checkNames reports a tensor listed twice: its shards would be read as two tensors of
// one name, the later hiding the earlier.
func (m *Manifest) checkNames() error {
	first := make(map[string]int, len(m.Tensors))
	for i, t := range m.Tensors {
		if j, ok := first[t.Name]; ok {
			return &FormatError{Tensor: t.Name, Msg: fmt.Sprintf("tensor %q is listed twice (tensors %d and %d of %d)", t.Name, j+1, i+1, len(m.Tensors))}
		}
		first[t.Name] = i
	}
	return nil
}

// deviceTable rebuilds the per-device table that Marshal leaves out of a large mesh's
// manifest: every device that holds a shard, with its mesh coordinates and files.
func (m *Manifest) deviceTable() error {
	mesh, err := placement.NewMesh(m.Mesh.Axes, m.Mesh.Sizes, m.Mesh.Devices)
	if err != nil {
		return &FormatError{Msg: "mesh", Err: err}
	}
	pos := make(map[int]int, len(m.Mesh.Devices))
	for p, id := range m.Mesh.Devices {
		pos[id] = p
	}
	held := map[int]bool{}
	for _, t := range m.Tensors {
		for _, s := range t.Shards {
			for _, d := range s.Devices {
				if _, ok := pos[d]; !ok {
					return &FormatError{Tensor: t.Name, Msg: fmt.Sprintf("tensor %q: shard %s lists device %d, which the mesh does not have", t.Name, s.File, d)}
				}
				held[d] = true
			}
		}
	}
	m.Devices = []Device{}
	for p, id := range m.Mesh.Devices {
		if held[id] {
			m.Devices = append(m.Devices, Device{ID: id, Coords: mesh.Coords(p)})
		}
	}
	m.Normalize()
	return nil
}

// Marshal prints the manifest as indented JSON with arrays of numbers, and objects of
// numbers, strings and such arrays (a device, a source file), on one line: a mesh of a
// million devices lists a million devices, and one line each makes the manifest a
// quarter smaller (107 MB to 82 MB for one replicated tensor).
//
// The per-device table is left out for a mesh of over compactAbove devices: it follows
// from the mesh and the shards, and Parse rebuilds it.
func (m *Manifest) Marshal() ([]byte, error) {
	out := m
	if len(m.Mesh.Devices) > compactAbove && len(m.Tensors) > 0 {
		c := *m
		c.Devices = nil
		out = &c
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(compactObjects(compactArrays(b)), '\n'), nil
}

// Normalize orders devices by id, tensors by name, shards by index and their
// devices by id, and lists each device's files, so that equal conversions print the
// same bytes however they were split.
func (m *Manifest) Normalize() {
	slices.SortFunc(m.Tensors, func(a, b Tensor) int { return strings.Compare(a.Name, b.Name) })
	files := map[int][]string{}
	for i := range m.Tensors {
		t := &m.Tensors[i]
		slices.SortFunc(t.Shards, func(a, b Shard) int { return slices.Compare(a.Index, b.Index) })
		for j := range t.Shards {
			slices.Sort(t.Shards[j].Devices)
			for _, d := range t.Shards[j].Devices {
				files[d] = append(files[d], t.Shards[j].File)
			}
		}
	}
	slices.SortFunc(m.Devices, func(a, b Device) int { return a.ID - b.ID })
	for i := range m.Devices {
		m.Devices[i].Files = files[m.Devices[i].ID]
		if m.Devices[i].Files == nil {
			m.Devices[i].Files = []string{}
		}
	}
}
