package sharding

import (
	"bytes"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"github.com/tpulayout/tpulayout/sharding/placement"
	"github.com/tpulayout/tpulayout/store"
)

// Problem is one thing Verify found wrong.
type Problem struct {
	Tensor string `json:"tensor,omitempty"` // may be empty
	File   string `json:"file,omitempty"`   // may be empty
	Msg    string `json:"msg"`
}

func (p Problem) String() string {
	s := p.Msg
	if p.File != "" {
		s = p.File + ": " + s
	}
	if p.Tensor != "" {
		s = fmt.Sprintf("tensor %q: %s", p.Tensor, s)
	}
	return s
}

// Report is what Verify checked.
type Report struct {
	Manifest *manifest.Manifest `json:"manifest"`
	Tensors  int                `json:"tensors"`
	Shards   int                `json:"shards"`
	Bytes    int64              `json:"bytes"`
	Problems []Problem          `json:"problems"`
}

// Verify re-reads the images of the conversion in dir and checks them against its
// manifest and the source checkpoint ckptPath ("" for the manifest's source): the
// mesh and every tensor's placement are recomputed from the spec, each device's files
// listed, each file's size and SHA-256 checked, and each image, read back to
// row-major through relayout, compared with the source window converted to the
// image's dtype; a sample of elements is also checked through the layout's
// per-element index math. It returns an error only when it cannot start; what it
// finds wrong is in Report.Problems. dir may be a bucket URL (s3://, gs://), and the
// checkpoint too: their objects are read by ranges, nothing copied to local disk.
func Verify(dir, ckptPath string) (*Report, error) { return verify(dir, ckptPath, noProgress{}) }

// verify is Verify telling p of each shard file checked.
func verify(dir, ckptPath string, p Progress) (*Report, error) {
	od, err := openOutDir(dir)
	if err != nil {
		return nil, err
	}
	m, err := od.manifest()
	if err != nil {
		return nil, err
	}
	if ckptPath == "" {
		ckptPath = m.Source
	}
	ckpt, err := OpenCheckpoint(ckptPath)
	if err != nil {
		return nil, fmt.Errorf("cannot open the source checkpoint %s: %w", ckptPath, err)
	}
	mesh, err := placement.NewMesh(m.Mesh.Axes, m.Mesh.Sizes, m.Mesh.Devices)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	p.Total(shardBytes(m))
	v := &verifier{r: &Report{Manifest: m}, od: od, ckpt: ckpt, ckptPath: ckptPath, mesh: mesh, p: p,
		files: map[int][]string{}, listed: map[string]bool{manifest.FileName: true}, vs: &vscratch{}}
	for _, mt := range m.Tensors {
		v.tensor(mt)
	}
	v.devices()
	// What the manifest does not list: a stale temporary of a killed run, a file of
	// another conversion. Verify only reports it (a rerun or merge removes our stale
	// temporaries).
	for _, f := range od.unlisted(v.listed) {
		v.bad("", f, "not listed in the manifest (a temporary left by a killed run, or a file of another conversion)")
	}
	return v.r, nil
}

// verifier is one verify's state: the report so far, and the files each device's
// shards are in and all the files listed, as the tensors are checked.
type verifier struct {
	r        *Report
	od       outDir
	ckpt     *Checkpoint
	ckptPath string
	mesh     *placement.Mesh
	p        Progress
	files    map[int][]string // by device id
	listed   map[string]bool
	vs       *vscratch
}

// bad adds a problem to the report.
func (v *verifier) bad(tensor, file, format string, args ...any) {
	v.r.Problems = append(v.r.Problems, Problem{tensor, file, fmt.Sprintf(format, args...)})
}

// tensor checks the tensor mt of the manifest: its entry against the source and
// its spec, then each shard's file.
func (v *verifier) tensor(mt manifest.Tensor) {
	v.r.Tensors++
	t, ok := v.ckpt.Tensor(mt.Name)
	if !ok {
		v.bad(mt.Name, "", "not in the source checkpoint %s", v.ckptPath)
		return
	}
	if t.DType.String() != mt.DType || !slices.Equal(t.Shape, mt.Shape) {
		v.bad(mt.Name, "", "the source holds %s%v, the manifest says %s%v", t.DType, t.Shape, mt.DType, mt.Shape)
		return
	}
	spec, err := placement.ParseSpec(mt.Spec)
	if err != nil {
		v.bad(mt.Name, "", "%v", err)
		return
	}
	pl, err := placement.Place(v.mesh, spec, t.Shape)
	if err != nil {
		v.bad(mt.Name, "", "%v", err)
		return
	}
	if !slices.Equal(pl.ShardDims, mt.ShardShape) {
		v.bad(mt.Name, "", "shard shape %v, but the spec gives %v", mt.ShardShape, pl.ShardDims)
		return
	}
	dst, err := layout.Parse(mt.Layout)
	if err == nil && !slices.Equal(dst.Dims, pl.ShardDims) {
		err = fmt.Errorf("its dims are not the shard's %v", pl.ShardDims)
	}
	if err != nil {
		v.bad(mt.Name, "", "layout %s: %v", mt.Layout, err)
		return
	}
	if len(mt.Shards) != len(pl.Shards) {
		v.bad(mt.Name, "", "%d shards listed, the spec gives %d", len(mt.Shards), len(pl.Shards))
		return
	}
	src, err := v.ckpt.verifySource(t)
	if err != nil {
		v.bad(mt.Name, "", "cannot read the source: %v", err)
		return
	}
	defer src.Close()
	for k, ms := range mt.Shards {
		v.shard(mt.Name, t, pl, &pl.Shards[k], ms, dst, src)
	}
}

// shard checks the manifest's shard ms of tensor t against s, the shard the spec
// gives, and its file's bytes against the source.
func (v *verifier) shard(name string, t TensorEntry, pl *placement.Placement, s *placement.Shard, ms manifest.Shard, dst layout.Shape, src *verifySource) {
	v.r.Shards++
	if !slices.Equal(ms.Index, s.Index) || !slices.Equal(ms.Devices, s.Devices) || !slices.Equal(ms.Ranges, pl.Ranges(s)) {
		v.bad(name, ms.File, "shard %v on devices %v, ranges %v; the spec puts shard %v on devices %v, ranges %v",
			ms.Index, ms.Devices, ms.Ranges, s.Index, s.Devices, pl.Ranges(s))
		return
	}
	for _, d := range s.Devices {
		v.files[d] = append(v.files[d], ms.File)
	}
	v.listed[ms.File] = true
	if d, _, ok := strings.Cut(ms.File, "/"); ok {
		v.listed[d] = true
	}
	var n int64
	var msg string
	err := buffer.GuardFaults("source "+t.File.Path, func() error {
		n, msg = verifyShard(v.od, ms.File, ms, dst, src, s.Start, v.vs)
		return nil
	}, src.buffers()...)
	if err != nil {
		msg = err.Error()
	}
	v.r.Bytes += n
	v.p.Add(ms.Bytes)
	if msg != "" {
		v.bad(name, ms.File, "%s", msg)
	}
}

// devices checks the manifest's devices against the mesh and the shards' files.
func (v *verifier) devices() {
	m := v.r.Manifest
	// By id, once: a search per device made a mesh of 2^20 devices take hours.
	byID := make(map[int]int, len(m.Devices))
	for i, d := range m.Devices {
		if _, dup := byID[d.ID]; dup {
			v.bad("", "", "device %d is listed twice", d.ID)
		}
		byID[d.ID] = i
	}
	for pos, id := range v.mesh.Devices {
		i, ok := byID[id]
		if !ok {
			i = -1
		}
		switch {
		case i < 0:
			v.bad("", "", "device %d is not listed", id)
		case !slices.Equal(m.Devices[i].Coords, v.mesh.Coords(pos)):
			v.bad("", "", "device %d has coordinates %v, the mesh puts it at %v", id, m.Devices[i].Coords, v.mesh.Coords(pos))
		case !slices.Equal(m.Devices[i].Files, nonNil(v.files[id])):
			v.bad("", "", "device %d lists files %v, its shards are %v", id, m.Devices[i].Files, v.files[id])
		}
	}
	if len(m.Devices) != v.mesh.Size() {
		v.bad("", "", "%d devices listed for a mesh of %d", len(m.Devices), v.mesh.Size())
	}
}

// verifyShard checks one image file; it returns the bytes read and what is wrong ("").
func verifyShard(od outDir, rel string, ms manifest.Shard, dst layout.Shape, src *verifySource, start []int64, vs *vscratch) (int64, string) {
	ix, err := layout.Compile(dst)
	if err != nil {
		return 0, err.Error()
	}
	f, err := od.open(rel)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, store.ErrNotExist) {
		return 0, "missing"
	} else if err != nil {
		return 0, err.Error()
	}
	st := f
	if st.Size() != ms.Bytes || st.Size() != ix.FootprintBytes() {
		f.Close()
		return 0, fmt.Sprintf("%d bytes, the manifest says %d and %s needs %d", st.Size(), ms.Bytes, dst, ix.FootprintBytes())
	}
	if od.path(rel) == "" && st.Size() >= buffer.MmapThreshold {
		defer f.Close()
		return verifyStreamed(f, ms, dst, ix, src, start, vs)
	}
	// The file is hashed in a lane (see lanes) while it is read and compared. A file
	// under buffer.MmapThreshold is read once, into a buffer kept from shard to shard (a
	// fresh one per shard was the garbage that doubled the heap), each 1 MiB hashed as
	// the next is read; a larger one is hashed in 1 MiB reads of its own (io.Copy would
	// take os.File's WriteTo, 32 KiB at a time) and mapped.
	h := ms.NewHash()
	ln := newLanes(1)
	defer ln.close()
	// A bucket's object under buffer.MmapThreshold is read whole, by ranges, then hashed.
	small := st.Size() < buffer.MmapThreshold || od.path(rel) == ""
	data, err := readHashing(f, st.Size(), small, od.path(rel) == "", h, ln, vs)
	if err != nil {
		return 0, err.Error()
	}
	// checked is the file's manifest.Checksum checked: "" when it matches.
	checked := func() string {
		if err := ln.close(); err != nil {
			return err.Error()
		}
		return ms.SumDiffers(h)
	}
	if ix.LogicalElements() == 0 {
		return st.Size(), checked()
	}
	var img *buffer.Buffer
	if small {
		img, err = buffer.Wrap(dst, data)
	} else {
		img, err = buffer.ReadRaw(od.path(rel), dst)
	}
	if err != nil {
		if msg := checked(); msg != "" {
			return st.Size(), msg
		}
		return st.Size(), err.Error()
	}
	defer img.Close()
	var done int64 // the bands before this are compared: their pages can go
	band := func(off, n int64) ([]byte, error) {
		img.ReleasePages(done, off)
		done = off
		return img.Data[off : off+n], nil
	}
	msg := compareBands(band, dst, src, start, vs)
	if sum := checked(); sum != "" { // a wrong manifest.Checksum is what is reported first
		return st.Size(), sum
	}
	if msg != "" {
		return st.Size(), msg
	}
	return st.Size(), checkSampled(img, dst, src, start, st.Size())
}

// readHashing reads the size bytes of f, a shard's file, and has a lane hash them
// into h; f is closed once read. A small file (or a whole one) is read into a buffer
// kept from shard to shard, which it returns: by ranges all at once (whole), else
// 1 MiB at a time, each hashed as the next is read. A large one is only hashed, in
// 1 MiB reads, and read again mapped.
func readHashing(f outFile, size int64, small, whole bool, h hash.Hash, ln *lanes, vs *vscratch) (data []byte, err error) {
	switch {
	case small && whole:
		data = grow(&vs.img, size)
		if _, err = readAt(f, data, 0); err == nil {
			ln.do(0, func() error { h.Write(data); return nil }, nil)
		}
		f.Close()
	case small:
		data = grow(&vs.img, size)
		for off := int64(0); off < size && err == nil; off += 1 << 20 {
			piece := data[off:min(off+1<<20, size)]
			if _, err = readAt(f, piece, off); err == nil {
				ln.do(0, func() error { h.Write(piece); return nil }, nil)
			}
		}
		f.Close()
	default:
		rd := grow(&vs.read, 1<<20)
		ln.do(0, func() error {
			defer f.Close()
			_, err := io.CopyBuffer(h, io.NewSectionReader(f, 0, size), rd)
			return err
		}, nil)
	}
	return data, err
}

// checkSampled compares a sample of the image's elements, found through the
// layout's index math independently of relayout, with the source's; "" when all
// match.
func checkSampled(img *buffer.Buffer, dst layout.Shape, src *verifySource, start []int64, size int64) string {
	idxs := sampleIndices(dst, size)
	sbs, err := src.bitsAt(idxs, start)
	if err != nil {
		return err.Error()
	}
	defer release(img)
	for i, idx := range idxs {
		if i%16 == 0 {
			release(img) // random reads fault in whole (possibly huge) pages of the mapping
		}
		w := buffer.ConvertElement(dst.DType, src.dt, sbs[i])
		if g := img.Bits(idx); g != w {
			return fmt.Sprintf("element %v of the shard holds %#x, want %#x (layout index math)", idx, g, w)
		}
	}
	return ""
}

// release drops the pages of mapped buffers from the resident set.
func release(bs ...*buffer.Buffer) {
	for _, b := range bs {
		b.ReleasePages(0, int64(len(b.Data)))
	}
}

// sampleIndices are the indices of the elements of an image of dst that verify checks
// through the layout's index math: 256, the same for the same image size.
func sampleIndices(dst layout.Shape, size int64) [][]int64 {
	rng := rand.New(rand.NewPCG(uint64(size), 16))
	idxs := make([][]int64, 256)
	for i := range idxs {
		idxs[i] = make([]int64, len(dst.Dims))
		for d, n := range dst.Dims {
			idxs[i][d] = rng.Int64N(n)
		}
	}
	return idxs
}

// compareBands reads an image of dst back to row-major through relayout and compares
// it with the source window converted to its dtype, band by band when the image bands
// (as the conversion does), so that memory stays bounded; band gives the image's n
// bytes from off, asked for in order. It returns what differs ("").
func compareBands(band func(off, n int64) ([]byte, error), dst layout.Shape, src *verifySource, start []int64, vs *vscratch) string {
	p, err := newImagePlan(dst, src.dt, BandBytes, nil)
	if err != nil {
		return err.Error()
	}
	banded, nb := p.bands != nil, 1
	if banded {
		nb = p.bands.Len()
	}
	from := slices.Clone(start)
	var off int64
	for k := range nb {
		bandShape, size, row := dst, p.footprint, int64(0)
		if banded {
			bd := p.bands.Band(k)
			bandShape, _ = p.bands.Shapes(k)
			size, row = bd.DstLen, bd.Row
			from[p.bands.Dim()] = start[p.bands.Dim()] + row
		}
		data, err := band(off, size)
		if err != nil {
			return err.Error()
		}
		bandImg, err := buffer.Wrap(bandShape, data)
		if err != nil {
			return err.Error()
		}
		off += int64(len(bandImg.Data))
		got, err := vs.toRowMajor(bandImg)
		if err != nil {
			return err.Error()
		}
		// i: the first byte that differs, -1 if none. A mapped source in the images'
		// dtype is compared where it lies (gathering the window first was 12% of the time).
		i := int64(-1)
		if m := src.mapped; m != nil && dst.DType == src.dt {
			eachRun(m, from, bandShape.Dims, int64(dst.DType.StorageBits()/8), true, func(o, at, n int64) bool {
				if g, w := got[o:o+n], m.Data[at:at+n]; !bytes.Equal(g, w) {
					i = o + firstDiff(g, w)
				}
				return i < 0
			})
		} else {
			want, err := vs.sourceWindow(src, from, bandShape.Dims, dst.DType)
			if err != nil {
				return err.Error()
			}
			if !bytes.Equal(got, want) {
				i = firstDiff(got, want)
			}
		}
		if i >= 0 {
			eb := int64(dst.DType.StorageBits() / 8)
			idx := make([]int64, len(dst.Dims))
			flatIndex(i/eb, bandShape.Dims, idx)
			if banded {
				idx[p.bands.Dim()] += row
			}
			return fmt.Sprintf("element %v of the shard (global %v) differs from the source", idx, addInts(idx, start))
		}
	}
	return ""
}

// vscratch holds verify's buffers and plans from band to band and shard to shard: a
// fresh buffer per band left the garbage collector to zero and collect them
// (runtime.memclrNoHeapPointers was 13% of a 2 GiB verify's profile) and let the heap
// grow to several bands.
type vscratch struct {
	read, img, rm, slab, conv []byte
	plans                     map[[2]string]*relayout.Plan
}

// plan returns the plan from src to dst, compiled once.
func (vs *vscratch) plan(dst, src layout.Shape) (*relayout.Plan, error) {
	key := [2]string{dst.String(), src.String()}
	if p, ok := vs.plans[key]; ok {
		return p, nil
	}
	p, err := relayout.NewPlan(dst, src)
	if err != nil {
		return nil, err
	}
	if vs.plans == nil {
		vs.plans = map[[2]string]*relayout.Plan{}
	}
	vs.plans[key] = p
	return p, nil
}

// toRowMajor relays an image out into its dtype's row-major form (valid until the
// next call).
func (vs *vscratch) toRowMajor(img *buffer.Buffer) ([]byte, error) {
	p, err := vs.plan(rowMajor(img.Shape.DType, img.Shape.Dims), img.Shape)
	if err != nil {
		return nil, err
	}
	out := grow(&vs.rm, p.DstBytes())
	return out, p.CopyBytes(out, img.Data)
}

// sourceWindow gathers a window of the row-major src and converts it to dt (valid
// until the next call).
func (vs *vscratch) sourceWindow(src *verifySource, start, dims []int64, dt layout.DType) ([]byte, error) {
	eb := int64(src.dt.StorageBits() / 8)
	slab := grow(&vs.slab, elems(dims)*eb)
	if _, _, err := src.gather(slab, start, dims, eb, true); err != nil {
		return nil, err
	}
	if dt == src.dt {
		return slab, nil
	}
	p, err := vs.plan(rowMajor(dt, dims), rowMajor(src.dt, dims))
	if err != nil {
		return nil, err
	}
	out := grow(&vs.conv, p.DstBytes())
	return out, p.CopyBytes(out, slab)
}

// firstDiff is the first index where a and b, which differ, differ.
func firstDiff(a, b []byte) int64 {
	i := 0
	for a[i] == b[i] {
		i++
	}
	return int64(i)
}

func flatIndex(i int64, dims, idx []int64) {
	for d := len(dims) - 1; d >= 0; d-- {
		idx[d] = i % dims[d]
		i /= dims[d]
	}
}

func addInts(a, b []int64) []int64 {
	c := make([]int64, len(a))
	for i := range a {
		c[i] = a[i] + b[i]
	}
	return c
}
