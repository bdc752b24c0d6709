package sharding

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
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
	Manifest *Manifest `json:"manifest"`
	Tensors  int       `json:"tensors"`
	Shards   int       `json:"shards"`
	Bytes    int64     `json:"bytes"`
	Problems []Problem `json:"problems"`
}

// Verify re-reads the images of the conversion in dir and checks them against its
// manifest and the source checkpoint ckptPath ("" for the manifest's source): the
// mesh and every tensor's placement are recomputed from the spec, each device's files
// listed, each file's size and SHA-256 checked, and each image, read back to
// row-major through relayout, compared with the source window converted to the
// image's dtype; a sample of elements is also checked through the layout's
// per-element index math. It returns an error only when it cannot start; what it
// finds wrong is in Report.Problems.
func Verify(dir, ckptPath string) (*Report, error) {
	m, err := ReadManifest(filepath.Join(dir, ManifestName))
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
	mesh, err := NewMesh(m.Mesh.Axes, m.Mesh.Sizes, m.Mesh.Devices)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	r := &Report{Manifest: m}
	bad := func(tensor, file, format string, args ...any) {
		r.Problems = append(r.Problems, Problem{tensor, file, fmt.Sprintf(format, args...)})
	}
	files := map[int][]string{}
	vs := &vscratch{}
	listed := map[string]bool{ManifestName: true}
	for _, mt := range m.Tensors {
		r.Tensors++
		t, ok := ckpt.Tensor(mt.Name)
		if !ok {
			bad(mt.Name, "", "not in the source checkpoint %s", ckptPath)
			continue
		}
		if t.DType.String() != mt.DType || !slices.Equal(t.Shape, mt.Shape) {
			bad(mt.Name, "", "the source holds %s%v, the manifest says %s%v", t.DType, t.Shape, mt.DType, mt.Shape)
			continue
		}
		spec, err := ParseSpec(mt.Spec)
		if err != nil {
			bad(mt.Name, "", "%v", err)
			continue
		}
		pl, err := Place(mesh, spec, t.Shape)
		if err != nil {
			bad(mt.Name, "", "%v", err)
			continue
		}
		if !slices.Equal(pl.ShardDims, mt.ShardShape) {
			bad(mt.Name, "", "shard shape %v, but the spec gives %v", mt.ShardShape, pl.ShardDims)
			continue
		}
		dst, err := layout.Parse(mt.Layout)
		if err == nil && !slices.Equal(dst.Dims, pl.ShardDims) {
			err = fmt.Errorf("its dims are not the shard's %v", pl.ShardDims)
		}
		if err != nil {
			bad(mt.Name, "", "layout %s: %v", mt.Layout, err)
			continue
		}
		if len(mt.Shards) != len(pl.Shards) {
			bad(mt.Name, "", "%d shards listed, the spec gives %d", len(mt.Shards), len(pl.Shards))
			continue
		}
		src, err := t.File.Read(t.Name)
		if err != nil {
			bad(mt.Name, "", "cannot read the source: %v", err)
			continue
		}
		for k, ms := range mt.Shards {
			s := &pl.Shards[k]
			r.Shards++
			if !slices.Equal(ms.Index, s.Index) || !slices.Equal(ms.Devices, s.Devices) || !slices.Equal(ms.Ranges, pl.Ranges(s)) {
				bad(mt.Name, ms.File, "shard %v on devices %v, ranges %v; the spec puts shard %v on devices %v, ranges %v",
					ms.Index, ms.Devices, ms.Ranges, s.Index, s.Devices, pl.Ranges(s))
				continue
			}
			for _, d := range s.Devices {
				files[d] = append(files[d], ms.File)
			}
			listed[ms.File] = true
			if d, _, ok := strings.Cut(ms.File, "/"); ok {
				listed[d] = true
			}
			var n int64
			var msg string
			err := buffer.GuardFaults("source "+t.File.Path, func() error {
				n, msg = verifyShard(filepath.Join(dir, ms.File), ms, dst, src, s.Start, vs)
				return nil
			}, src)
			if err != nil {
				msg = err.Error()
			}
			r.Bytes += n
			if msg != "" {
				bad(mt.Name, ms.File, "%s", msg)
			}
		}
		src.Close()
	}
	// By id, once: a search per device made a mesh of 2^20 devices take hours.
	byID := make(map[int]int, len(m.Devices))
	for i, d := range m.Devices {
		if _, dup := byID[d.ID]; dup {
			bad("", "", "device %d is listed twice", d.ID)
		}
		byID[d.ID] = i
	}
	for pos, id := range mesh.Devices {
		i, ok := byID[id]
		if !ok {
			i = -1
		}
		switch {
		case i < 0:
			bad("", "", "device %d is not listed", id)
		case !slices.Equal(m.Devices[i].Coords, mesh.Coords(pos)):
			bad("", "", "device %d has coordinates %v, the mesh puts it at %v", id, m.Devices[i].Coords, mesh.Coords(pos))
		case !slices.Equal(m.Devices[i].Files, nonNil(files[id])):
			bad("", "", "device %d lists files %v, its shards are %v", id, m.Devices[i].Files, files[id])
		}
	}
	if len(m.Devices) != mesh.Size() {
		bad("", "", "%d devices listed for a mesh of %d", len(m.Devices), mesh.Size())
	}
	// What the manifest does not list: a stale temporary of a killed run, a file of
	// another conversion. Verify only reports it (a rerun or merge removes our stale
	// temporaries).
	for _, f := range unlistedFiles(dir, listed, false) {
		bad("", f, "not listed in the manifest (a temporary left by a killed run, or a file of another conversion)")
	}
	return r, nil
}

// verifyShard checks one image file; it returns the bytes read and what is wrong ("").
func verifyShard(path string, ms ManifestShard, dst layout.Shape, src *buffer.Buffer, start []int64, vs *vscratch) (int64, string) {
	ix, err := layout.Compile(dst)
	if err != nil {
		return 0, err.Error()
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, "missing"
	}
	if st.Size() != ms.Bytes || st.Size() != ix.FootprintBytes() {
		return 0, fmt.Sprintf("%d bytes, the manifest says %d and %s needs %d", st.Size(), ms.Bytes, dst, ix.FootprintBytes())
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err.Error()
	}
	// The file is hashed in a lane (see lanes) while it is read and compared. A file
	// under buffer.MmapThreshold is read once, into a buffer kept from shard to shard (a
	// fresh one per shard was the garbage that doubled the heap), each 1 MiB hashed as
	// the next is read; a larger one is hashed in 1 MiB reads of its own (io.Copy would
	// take os.File's WriteTo, 32 KiB at a time) and mapped.
	h := sha256.New()
	ln := newLanes(1)
	defer ln.close()
	small := st.Size() < buffer.MmapThreshold
	var data []byte
	if small {
		data = grow(&vs.img, st.Size())
		for off := int64(0); off < st.Size() && err == nil; off += 1 << 20 {
			piece := data[off:min(off+1<<20, st.Size())]
			if _, err = io.ReadFull(f, piece); err == nil {
				ln.do(0, func() error { h.Write(piece); return nil }, nil)
			}
		}
		f.Close()
	} else {
		rd := grow(&vs.read, 1<<20)
		ln.do(0, func() error {
			defer f.Close()
			_, err := io.CopyBuffer(h, struct{ io.Reader }{f}, rd)
			return err
		}, nil)
	}
	if err != nil {
		return 0, err.Error()
	}
	// checked is the file's checksum checked: "" when it matches.
	checked := func() string {
		if err := ln.close(); err != nil {
			return err.Error()
		}
		if sum := hex.EncodeToString(h.Sum(nil)); sum != ms.SHA256 {
			return fmt.Sprintf("sha256 %s, the manifest says %s", sum, ms.SHA256)
		}
		return ""
	}
	if ix.LogicalElements() == 0 {
		return st.Size(), checked()
	}
	var img *buffer.Buffer
	if small {
		img, err = buffer.Wrap(dst, data)
	} else {
		img, err = buffer.ReadRaw(path, dst)
	}
	if err != nil {
		if msg := checked(); msg != "" {
			return st.Size(), msg
		}
		return st.Size(), err.Error()
	}
	defer img.Close()
	msg := compareBands(img, dst, src, start, vs)
	if sum := checked(); sum != "" { // a wrong checksum is what is reported first
		return st.Size(), sum
	}
	if msg != "" {
		return st.Size(), msg
	}
	// Independently of relayout: a sample of elements through the layout's index math.
	rng := rand.New(rand.NewPCG(uint64(len(img.Data)), 16))
	idx := make([]int64, len(dst.Dims))
	sIdx := make([]int64, len(dst.Dims))
	for i := range 256 {
		if i%16 == 0 {
			// Random reads fault in whole (possibly huge) pages of the mappings.
			release(src, img)
		}
		for d, n := range dst.Dims {
			idx[d] = rng.Int64N(n)
			sIdx[d] = idx[d] + start[d]
		}
		w := buffer.ConvertElement(dst.DType, src.Shape.DType, src.Bits(sIdx))
		if g := img.Bits(idx); g != w {
			return st.Size(), fmt.Sprintf("element %v of the shard holds %#x, want %#x (layout index math)", idx, g, w)
		}
	}
	release(src, img)
	return st.Size(), ""
}

// release drops the pages of mapped buffers from the resident set.
func release(bs ...*buffer.Buffer) {
	for _, b := range bs {
		b.ReleasePages(0, int64(len(b.Data)))
	}
}

// compareBands reads img back to row-major through relayout and compares it with the
// source window converted to its dtype, band by band when the image bands (as the
// conversion does), so that memory stays bounded; it returns what differs ("").
func compareBands(img *buffer.Buffer, dst layout.Shape, src *buffer.Buffer, start []int64, vs *vscratch) string {
	p, err := newImagePlan(dst, src.Shape.DType, BandBytes, nil)
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
		bandImg, err := buffer.Wrap(bandShape, img.Data[off:off+size])
		if err != nil {
			return err.Error()
		}
		off += int64(len(bandImg.Data))
		got, err := vs.toRowMajor(bandImg)
		if err != nil {
			return err.Error()
		}
		// i: the first byte that differs, -1 if none. In the source's dtype the
		// window is compared where it lies (gathering it first was 12% of the time).
		i := int64(-1)
		if dst.DType == src.Shape.DType {
			eachRun(src, from, bandShape.Dims, int64(dst.DType.StorageBits()/8), true, func(o, at, n int64) bool {
				if g, w := got[o:o+n], src.Data[at:at+n]; !bytes.Equal(g, w) {
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
		img.ReleasePages(off-int64(len(bandImg.Data)), off)
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
func (vs *vscratch) sourceWindow(src *buffer.Buffer, start, dims []int64, dt layout.DType) ([]byte, error) {
	eb := int64(src.Shape.DType.StorageBits() / 8)
	slab := grow(&vs.slab, elems(dims)*eb)
	gatherWindow(slab, src, start, dims, eb, true)
	if dt == src.Shape.DType {
		return slab, nil
	}
	p, err := vs.plan(rowMajor(dt, dims), rowMajor(src.Shape.DType, dims))
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
