package sharding

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/sharding/internal/strictjson"
	"github.com/tpulayout/tpulayout/sharding/placement"
)

// ManifestFormat names the manifest's format and version.
const ManifestFormat = "tpulayout-sharded-1"

// ManifestName is the manifest of a whole conversion in its directory.
const ManifestName = "manifest.json"

// Manifest describes a sharded conversion: the mesh, each device's files and each
// tensor's shards. Checksum names the algorithm of the image files' checksums:
// ChecksumCRC32C or ChecksumSHA256.
type Manifest struct {
	Format   string           `json:"format"`
	Source   string           `json:"source"`
	To       string           `json:"to"`
	Sources  []ManifestSource `json:"sources,omitempty"` // the checkpoint's files as read
	Checksum string           `json:"checksum"`
	Process  string           `json:"process,omitempty"` // "I/N" in a partial manifest
	Mesh     ManifestMesh     `json:"mesh"`
	Devices  []ManifestDevice `json:"devices,omitempty"` // left out for meshes of over 64 devices
	Tensors  []ManifestTensor `json:"tensors"`
}

// ManifestMesh is the mesh: axes majormost first, and the device ids in row-major
// order of the axes.
type ManifestMesh struct {
	Axes    []string  `json:"axes"`
	Sizes   []int     `json:"sizes"`
	Devices DeviceIDs `json:"devices"`
}

// String prints the mesh's axes and sizes as placement.ParseMesh reads them:
// "data=2,model=4".
func (m ManifestMesh) String() string {
	return (&placement.Mesh{Axes: m.Axes, Sizes: m.Sizes}).String()
}

// ManifestDevice is one device: its id, mesh coordinates and the image files it
// loads, one per tensor in the order of Tensors.
type ManifestDevice struct {
	ID     int      `json:"id"`
	Coords []int    `json:"coords"`
	Files  []string `json:"files"`
}

// ManifestTensor is one tensor: its source, spec and device layout, and its shards.
type ManifestTensor struct {
	Name       string          `json:"name"`
	DType      string          `json:"dtype"` // the source's
	Shape      []int64         `json:"shape"` // global
	SourceFile string          `json:"source_file"`
	Spec       string          `json:"spec"`
	ShardShape []int64         `json:"shard_shape"`
	Layout     string          `json:"layout"` // of each shard's image
	Shards     []ManifestShard `json:"shards"`
}

// ManifestShard is one distinct shard, written once for all the devices that hold
// it: its position, index ranges [start, end) per dim, devices, file, size and
// checksum, of the algorithm the manifest names (see Checksum).
type ManifestShard struct {
	Index   []int      `json:"index"`
	Ranges  [][2]int64 `json:"ranges"`
	Devices DeviceIDs  `json:"devices"`
	File    string     `json:"file"`
	Bytes   int64      `json:"bytes"`
	SHA256  string     `json:"sha256,omitempty"` // when the manifest's checksum is sha256
	CRC32C  string     `json:"crc32c,omitempty"` // when it is crc32c (8 hex digits, big-endian)
}

// ReadManifest reads a manifest file (at most MaxManifestBytes), strictly: see
// ParseManifest.
func ReadManifest(path string) (*Manifest, error) {
	data, err := readLimited(path, "manifest", MaxManifestBytes)
	if err != nil {
		return nil, err
	}
	m, err := ParseManifest(data)
	if err != nil {
		return nil, fmt.Errorf("sharding: manifest %s: %w", path, err)
	}
	return m, nil
}

// ParseManifest parses a manifest's text. A key it does not know, a key given twice,
// another format, a checksum other than crc32c or sha256, a tensor listed twice, or a
// shard whose checksum is not one well-formed sum of the manifest's algorithm are errors: a manifest is what merge,
// verify and gather trust, so nothing in it may be silently ignored.
func ParseManifest(data []byte) (*Manifest, error) {
	var m Manifest
	if err := strictjson.Decode(data, &m); err != nil {
		return nil, fmt.Errorf("not a valid manifest: %w", err)
	}
	if m.Format != ManifestFormat {
		return nil, fmt.Errorf("format %q, want %q", m.Format, ManifestFormat)
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
		return nil, fmt.Errorf("mesh: %w", err)
	}
	return &m, nil
}

// checkNames reports a tensor listed twice: its shards would be read as two tensors of
// one name, the later hiding the earlier.
func (m *Manifest) checkNames() error {
	first := make(map[string]int, len(m.Tensors))
	for i, t := range m.Tensors {
		if j, ok := first[t.Name]; ok {
			return fmt.Errorf("tensor %q is listed twice (tensors %d and %d of %d)", t.Name, j+1, i+1, len(m.Tensors))
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
		return fmt.Errorf("mesh: %w", err)
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
					return fmt.Errorf("tensor %q: shard %s lists device %d, which the mesh does not have", t.Name, s.File, d)
				}
				held[d] = true
			}
		}
	}
	m.Devices = []ManifestDevice{}
	for p, id := range m.Mesh.Devices {
		if held[id] {
			m.Devices = append(m.Devices, ManifestDevice{ID: id, Coords: mesh.Coords(p)})
		}
	}
	m.normalize()
	return nil
}

// Marshal prints the manifest as indented JSON with arrays of numbers, and objects of
// numbers, strings and such arrays (a device, a source file), on one line: a mesh of a
// million devices lists a million devices, and one line each makes the manifest a
// quarter smaller (107 MB to 82 MB for one replicated tensor).
//
// The per-device table is left out for a mesh of over compactAbove devices: it follows
// from the mesh and the shards, and ParseManifest rebuilds it.
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

// normalize orders devices by id, tensors by name, shards by index and their
// devices by id, and lists each device's files, so that equal conversions print the
// same bytes however they were split.
func (m *Manifest) normalize() {
	slices.SortFunc(m.Tensors, func(a, b ManifestTensor) int { return strings.Compare(a.Name, b.Name) })
	files := map[int][]string{}
	for i := range m.Tensors {
		t := &m.Tensors[i]
		slices.SortFunc(t.Shards, func(a, b ManifestShard) int { return slices.Compare(a.Index, b.Index) })
		for j := range t.Shards {
			slices.Sort(t.Shards[j].Devices)
			for _, d := range t.Shards[j].Devices {
				files[d] = append(files[d], t.Shards[j].File)
			}
		}
	}
	slices.SortFunc(m.Devices, func(a, b ManifestDevice) int { return a.ID - b.ID })
	for i := range m.Devices {
		m.Devices[i].Files = files[m.Devices[i].ID]
		if m.Devices[i].Files == nil {
			m.Devices[i].Files = []string{}
		}
	}
}

// PartialName is the file name of process i of n's manifest.
func PartialName(i, n int) string { return fmt.Sprintf("manifest.process-%d-of-%d.json", i, n) }

var partialRE = regexp.MustCompile(`^manifest\.process-(\d+)-of-(\d+)\.json$`)

// Merge combines the partial manifests of the processes of a conversion in dir (all
// n of them, for one n) into manifest.json, checking that they agree on the source,
// target and mesh, that every device is covered once, and that shards written by
// several processes have the same checksum. It removes the partial manifests, so
// the directory then equals that of a one-process conversion. It returns the
// merged manifest.
func Merge(dir string) (*Manifest, error) { return MergeWith(dir, MergeOptions{}) }

// MergeOptions change what Merge checks.
type MergeOptions struct {
	// Quick skips re-hashing the shard files: their existence and sizes are still
	// checked (verify checks everything).
	Quick bool
	// Progress, when set, hears how far the check of the shard files has got.
	Progress Progress

	// files checks the listed shard files and finds unlisted ones where they are not
	// in the directory merged (a bucket prefix: see MergeURL); nil for the directory.
	files shardFiles
}

// shardFiles is where a merge looks for the shard files its manifests list.
type shardFiles interface {
	// check returns what is wrong with the listed file rel ("" if nothing).
	check(rel string, ms ManifestShard, hash bool) string
	// unlisted returns the first file that listed does not hold ("" if none).
	unlisted(listed map[string]bool) string
	// has reports whether the file rel is there.
	has(rel string) bool
}

// dirFiles is a directory's shard files.
type dirFiles string

func (d dirFiles) check(rel string, ms ManifestShard, hash bool) string {
	return checkShardFile(filepath.Join(string(d), rel), ms, hash)
}

func (d dirFiles) unlisted(listed map[string]bool) string { return unlisted(string(d), listed) }

func (d dirFiles) has(rel string) bool {
	_, err := os.Stat(filepath.Join(string(d), rel))
	return err == nil
}

// MergeWith is Merge with options. Besides what the partial manifests say of each
// other, it checks the directory: every listed file is there with its listed size
// and (unless Quick) checksum, each tensor's shards are where its spec puts them, all
// processes read the same source (sizes and fingerprints of its files), and nothing
// is there that no manifest lists, but for stale temporaries of a killed run, which it
// removes (see buffer.RemoveStaleTemps).
func MergeWith(dir string, opt MergeOptions) (*Manifest, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	parts := map[int]string{}
	n := 0
	for _, e := range ents {
		sm := partialRE.FindStringSubmatch(e.Name())
		if sm == nil {
			continue
		}
		i, err1 := strconv.Atoi(sm[1])
		k, err2 := strconv.Atoi(sm[2])
		if err1 != nil || err2 != nil || k < 1 || i >= k || sm[1] != strconv.Itoa(i) || sm[2] != strconv.Itoa(k) {
			return nil, fmt.Errorf("sharding: %s holds %s, which no process writes (process I of N is 0 ≤ I < N); remove it", dir, e.Name())
		}
		if n != 0 && k != n {
			return nil, fmt.Errorf("sharding: %s holds partial manifests of %d and of %d processes; remove the stale ones", dir, n, k)
		}
		n = k
		parts[i] = e.Name()
	}
	if n == 0 {
		return nil, noPartials(dir, opt.files)
	}
	var missing []string
	for i := range n {
		if _, ok := parts[i]; !ok {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("sharding: %s lacks the manifests of process(es) %s of %d: they have not finished", dir, strings.Join(missing, ", "), n)
	}
	var out *Manifest
	tensors := map[string]*ManifestTensor{}
	shards := map[string]map[string]*ManifestShard{} // by tensor, then file
	tensorFrom := map[string]string{}                // the partial manifest that first listed a tensor
	shardFrom := map[[2]string]string{}              // or a shard, by tensor and file
	devices := map[int]bool{}
	for i := range n {
		p, err := ReadManifest(filepath.Join(dir, parts[i]))
		if err != nil {
			return nil, err
		}
		if p.Process != fmt.Sprintf("%d/%d", i, n) {
			return nil, fmt.Errorf("sharding: %s says it is process %q, want %d/%d", parts[i], p.Process, i, n)
		}
		if out == nil {
			out = &Manifest{Format: p.Format, Source: p.Source, To: p.To, Sources: p.Sources, Checksum: p.Checksum, Mesh: p.Mesh}
		} else if p.Source != out.Source || p.To != out.To || p.Checksum != out.Checksum || !sameMesh(p.Mesh, out.Mesh) || !slices.Equal(p.Sources, out.Sources) {
			var d []string
			d = differ(d, "checksum", out.Checksum, p.Checksum)
			d = differ(d, "source", out.Source, p.Source)
			d = differ(d, "--to", out.To, p.To)
			for k := range max(len(p.Sources), len(out.Sources)) {
				var a, b ManifestSource
				if k < len(out.Sources) {
					a = out.Sources[k]
				}
				if k < len(p.Sources) {
					b = p.Sources[k]
				}
				if a != b {
					d = append(d, fmt.Sprintf("source file %s: %d bytes, fingerprint %.12s… in the first; %s: %d bytes, %.12s… in the second (the checkpoint changed between the processes)",
						a.File, a.Bytes, a.Fingerprint, b.File, b.Bytes, b.Fingerprint))
					break
				}
			}
			if !sameMesh(p.Mesh, out.Mesh) {
				d = append(d, "mesh")
			}
			return nil, fmt.Errorf("sharding: %s and %s describe different conversions: %s", parts[0], parts[i], strings.Join(d, "; "))
		}
		for _, d := range p.Devices {
			if devices[d.ID] {
				return nil, fmt.Errorf("sharding: device %d appears in two partial manifests", d.ID)
			}
			devices[d.ID] = true
			out.Devices = append(out.Devices, ManifestDevice{ID: d.ID, Coords: d.Coords})
		}
		for _, t := range p.Tensors {
			mt, ok := tensors[t.Name]
			if !ok {
				c := t
				c.Shards = nil
				mt = &c
				tensors[t.Name] = mt
				tensorFrom[t.Name] = parts[i]
			} else if mt.Spec != t.Spec || mt.Layout != t.Layout || mt.DType != t.DType || !slices.Equal(mt.Shape, t.Shape) {
				var d []string
				d = differ(d, "dtype", mt.DType, t.DType)
				d = differ(d, "shape", mt.Shape, t.Shape)
				d = differ(d, "spec", mt.Spec, t.Spec)
				d = differ(d, "layout", mt.Layout, t.Layout)
				return nil, fmt.Errorf("sharding: tensor %q differs between partial manifests %s and %s: %s",
					t.Name, tensorFrom[t.Name], parts[i], strings.Join(d, "; "))
			}
			if shards[t.Name] == nil {
				shards[t.Name] = map[string]*ManifestShard{}
			}
			for _, s := range t.Shards {
				if prev, ok := shards[t.Name][s.File]; ok {
					if prev.SHA256 != s.SHA256 || prev.CRC32C != s.CRC32C || prev.Bytes != s.Bytes {
						var d []string
						d = differ(d, "bytes", prev.Bytes, s.Bytes)
						d = differ(d, "sha256", prev.SHA256, s.SHA256)
						d = differ(d, "crc32c", prev.CRC32C, s.CRC32C)
						return nil, fmt.Errorf("sharding: shard %s (tensor %q, shard %v) was written with different contents by two processes, %s and %s: %s",
							s.File, t.Name, s.Index, shardFrom[[2]string{t.Name, s.File}], parts[i], strings.Join(d, "; "))
					}
					prev.Devices = append(prev.Devices, s.Devices...)
					continue
				}
				c := s
				c.Devices = slices.Clone(s.Devices)
				shards[t.Name][s.File] = &c
				shardFrom[[2]string{t.Name, s.File}] = parts[i]
			}
		}
	}
	if len(devices) != len(out.Mesh.Devices) {
		return nil, fmt.Errorf("sharding: the partial manifests cover %d of the mesh's %d devices", len(devices), len(out.Mesh.Devices))
	}
	for name, mt := range tensors {
		for _, s := range shards[name] {
			mt.Shards = append(mt.Shards, *s)
		}
		out.Tensors = append(out.Tensors, *mt)
	}
	out.normalize()
	for _, t := range out.Tensors {
		covered := 0
		for _, s := range t.Shards {
			covered += len(s.Devices)
		}
		if covered != len(out.Mesh.Devices) {
			return nil, fmt.Errorf("sharding: tensor %q has shards for %d of %d devices after the merge", t.Name, covered, len(out.Mesh.Devices))
		}
	}
	if err := checkMergedFiles(dir, out, opt, parts); err != nil {
		return nil, err
	}
	js, err := out.Marshal()
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(dir, ManifestName), js); err != nil {
		return nil, err
	}
	for _, p := range parts {
		os.Remove(filepath.Join(dir, p))
	}
	return out, nil
}

// noPartials is Merge's error for a directory without partial manifests: already
// merged when it holds manifest.json.
func noPartials(dir string, files shardFiles) error {
	if files == nil {
		files = dirFiles(dir)
	}
	if files.has(ManifestName) {
		return fmt.Errorf("sharding: %s is already merged: it holds %s and no partial manifests (manifest.process-I-of-N.json)", dir, ManifestName)
	}
	return fmt.Errorf("sharding: %s holds no partial manifests (manifest.process-I-of-N.json, written by --process I/N)", dir)
}

func sameMesh(a, b ManifestMesh) bool {
	return slices.Equal(a.Axes, b.Axes) && slices.Equal(a.Sizes, b.Sizes) && slices.Equal(a.Devices, b.Devices)
}

// compactArrays rewrites indented JSON so that arrays holding no objects or arrays
// print on one line.
func compactArrays(b []byte) []byte {
	var out bytes.Buffer
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '"' {
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			out.Write(b[i : j+1])
			i = j
			continue
		}
		if c != '[' {
			out.WriteByte(c)
			continue
		}
		j, flat := i+1, true
		for ; j < len(b) && b[j] != ']'; j++ {
			if b[j] == '[' || b[j] == '{' {
				flat = false
				break
			}
			if b[j] == '"' {
				for j++; j < len(b) && b[j] != '"'; j++ {
					if b[j] == '\\' {
						j++
					}
				}
			}
		}
		if !flat || j >= len(b) {
			out.WriteByte(c)
			continue
		}
		out.WriteByte('[')
		inStr := false
		for k := i + 1; k < j; k++ {
			ch := b[k]
			switch {
			case inStr:
				out.WriteByte(ch)
				if ch == '\\' {
					k++
					out.WriteByte(b[k])
				} else if ch == '"' {
					inStr = false
				}
			case ch == '"':
				inStr = true
				out.WriteByte(ch)
			case ch == ' ' || ch == '\n' || ch == '\t':
			case ch == ',':
				out.WriteString(",")
			default:
				out.WriteByte(ch)
			}
		}
		out.WriteByte(']')
		i = j
	}
	return out.Bytes()
}

// writeFileAtomic writes data to path through a temporary file and a rename.
func writeFileAtomic(path string, data []byte) error {
	return buffer.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// differ appends "field a in the first, b in the second" to d when a and b differ.
func differ(d []string, field string, a, b any) []string {
	if fmt.Sprint(a) == fmt.Sprint(b) {
		return d
	}
	return append(d, fmt.Sprintf("%s %v in the first, %v in the second", field, a, b))
}

// compactObjects rewrites the output of compactArrays so that an object holding only
// numbers, strings and one-line arrays prints on one line: {"id": 1, "coords": [0,1]}.
func compactObjects(b []byte) []byte {
	var out bytes.Buffer
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '"' {
			j := skipString(b, i)
			out.Write(b[i : j+1])
			i = j
			continue
		}
		if c != '{' {
			out.WriteByte(c)
			continue
		}
		// Flat: no '{' before the matching '}', and no '[' that opens a line.
		j, flat := i+1, true
		for ; j < len(b) && b[j] != '}'; j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j)
			case '{':
				flat = false
			case '[':
				if j+1 < len(b) && b[j+1] == '\n' {
					flat = false
				}
			}
			if !flat {
				break
			}
		}
		if !flat || j >= len(b) {
			out.WriteByte(c)
			continue
		}
		// Join the lines: drop each newline and its indentation, and the ones around
		// the braces.
		out.WriteByte('{')
		for k := i + 1; k < j; k++ {
			switch b[k] {
			case '"':
				e := skipString(b, k)
				out.Write(b[k : e+1])
				k = e
			case '\n':
				for k+1 < j && (b[k+1] == ' ' || b[k+1] == '\t') {
					k++
				}
				if prev := out.Bytes()[out.Len()-1]; prev != '{' && k+1 < j {
					out.WriteByte(' ')
				}
			default:
				out.WriteByte(b[k])
			}
		}
		out.WriteByte('}')
		i = j
	}
	return out.Bytes()
}

// skipString returns the index of the quote that closes the JSON string opened at i.
func skipString(b []byte, i int) int {
	j := i + 1
	for j < len(b) && b[j] != '"' {
		if b[j] == '\\' {
			j++
		}
		j++
	}
	return min(j, len(b)-1)
}
