package sharding

import (
	"fmt"
	"io"
	"os"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"github.com/tpulayout/tpulayout/sharding/placement"
)

// Gather reassembles the global arrays of the conversion in dir from its device
// images and writes them to the safetensors file out, row-major in the images' dtype
// (tensors in name order). Every shard's file is checked against its size and SHA-256
// in the manifest, which is how the replicas agree (each distinct shard is one file
// that all its devices load), and the shards must cover every device of the mesh once
// and tile the whole array; a manifest without tensors is an error. out is written
// to a temporary file and renamed. Images banded along dim 0 (the default layouts') are read band by band, so that memory holds
// about 8 MiB of global rows (gatherBandBytes); others one global tensor at a time.
func Gather(dir, out string) (*manifest.Manifest, error) {
	var m *manifest.Manifest
	err := buffer.WriteFileAtomicFile(out, func(f *os.File) error {
		var err error
		m, err = GatherTo(f, dir)
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

type gatherTensor struct {
	mt  manifest.Tensor
	dst layout.Shape
	pl  *placement.Placement
}

// GatherTo is Gather writing the safetensors file to w, in order (a stream will do):
// everything in the manifest is checked before the first byte.
func GatherTo(w io.Writer, dir string) (*manifest.Manifest, error) {
	return gatherTo(w, dir, noProgress{})
}

// gatherTo is GatherTo telling p of the bytes written.
func gatherTo(w io.Writer, dir string, p Progress) (*manifest.Manifest, error) {
	od, err := openOutDir(dir)
	if err != nil {
		return nil, err
	}
	m, err := od.manifest()
	if err != nil {
		return nil, err
	}
	if len(m.Tensors) == 0 {
		return nil, fmt.Errorf("sharding: the manifest of %s lists no tensors: there is nothing to gather", dir)
	}
	mesh, err := placement.NewMesh(m.Mesh.Axes, m.Mesh.Sizes, m.Mesh.Devices)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	var ts []gatherTensor
	dirs := map[string]string{} // tensor by directory
	var infos []safetensors.TensorInfo
	for _, mt := range m.Tensors {
		dst, err := layout.Parse(mt.Layout)
		if err != nil {
			return nil, fmt.Errorf("tensor %q: layout %s: %w", mt.Name, mt.Layout, err)
		}
		spec, err := placement.ParseSpec(mt.Spec)
		if err != nil {
			return nil, fmt.Errorf("tensor %q: %w", mt.Name, err)
		}
		pl, err := placement.Place(mesh, spec, mt.Shape)
		if err != nil {
			return nil, fmt.Errorf("tensor %q: %w", mt.Name, err)
		}
		d, err := manifest.CheckListed(&mt, pl, dst)
		if err != nil {
			return nil, fmt.Errorf("tensor %q: %w", mt.Name, err)
		}
		if prev, ok := dirs[d]; ok {
			return nil, fmt.Errorf("tensors %q and %q both list files in %s/", prev, mt.Name, d)
		}
		dirs[d] = mt.Name
		// Sizes before anything is allocated: the global array is then no larger than
		// the shard files on disk make it.
		for _, ms := range mt.Shards {
			f, err := od.open(ms.File)
			if err != nil {
				return nil, fmt.Errorf("tensor %q: shard %s: %w", mt.Name, ms.File, err)
			}
			f.Close()
			if f.Size() != ms.Bytes {
				return nil, fmt.Errorf("tensor %q: %s has %d bytes, the manifest says %d", mt.Name, ms.File, f.Size(), ms.Bytes)
			}
		}
		ts = append(ts, gatherTensor{mt, dst, pl})
		infos = append(infos, safetensors.TensorInfo{Name: mt.Name, DType: dst.DType, Shape: mt.Shape})
	}
	hdr, err := safetensors.HeaderFor(infos, nil)
	if err != nil {
		return nil, err
	}
	total := int64(len(hdr))
	for _, t := range ts {
		total += elems(t.mt.Shape) * int64(t.dst.DType.StorageBits()/8)
	}
	p.Total(total)
	if err := writeGathered(countingWriter{w, p}, od, hdr, ts); err != nil {
		return nil, err
	}
	return m, nil
}

// writeGathered writes the safetensors file: hdr, then each tensor in order.
func writeGathered(f io.Writer, dir outDir, hdr []byte, ts []gatherTensor) error {
	if _, err := f.Write(hdr); err != nil {
		return err
	}
	sc := &scratch{} // reused from shard to shard
	var buf []byte   // the global tensor, reused from tensor to tensor
	for _, t := range ts {
		eb := int64(t.dst.DType.StorageBits() / 8)
		if ok, err := gatherBanded(f, dir, t.mt, t.dst, t.pl, sc); ok {
			if err != nil {
				return fmt.Errorf("tensor %q: %w", t.mt.Name, err)
			}
			continue
		}
		global := grow(&buf, elems(t.mt.Shape)*eb)
		for k, ms := range t.mt.Shards {
			shard, err := readShard(dir, ms, t.dst, sc)
			if err != nil {
				return fmt.Errorf("tensor %q: %w", t.mt.Name, err)
			}
			scatterWindow(global, t.mt.Shape, shard, t.pl.Shards[k].Start, t.dst.Dims, eb)
		}
		if _, err := (buffer.ChunkedWriter{W: f}).Write(global); err != nil {
			return err
		}
	}
	return nil
}

// readShard reads an image file into sc, checks its size and checksum, and returns it
// row-major (in sc too: valid until the next call).
func readShard(dir outDir, ms manifest.Shard, dst layout.Shape, sc *scratch) ([]byte, error) {
	f, err := openShard(dir, ms)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := grow(&sc.img, ms.Bytes)
	if _, err := readAt(f, data, 0); err != nil {
		return nil, err
	}
	h := ms.NewHash()
	h.Write(data)
	if ms.SumDiffers(h) != "" {
		return nil, ms.Mismatch()
	}
	img, err := buffer.Wrap(dst, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ms.File, err)
	}
	if img.Len() == 0 {
		return nil, nil
	}
	p, err := relayout.NewPlan(rowMajor(dst.DType, dst.Dims), dst)
	if err != nil {
		return nil, err
	}
	out := grow(&sc.slab, p.DstBytes())
	return out, p.CopyBytes(out, data)
}

// scatterWindow copies the row-major window (start, dims) into the row-major global
// array of gdims: the inverse of gatherWindow.
func scatterWindow(global []byte, gdims []int64, window []byte, start, dims []int64, eb int64) {
	rank := len(gdims)
	if elems(dims) == 0 {
		return
	}
	if rank == 0 {
		copy(global, window)
		return
	}
	strides := make([]int64, rank)
	strides[rank-1] = eb
	for i := rank - 2; i >= 0; i-- {
		strides[i] = strides[i+1] * gdims[i+1]
	}
	run := dims[rank-1] * eb
	idx := make([]int64, rank-1)
	var o int64
	for {
		off := start[rank-1] * eb
		for i := range rank - 1 {
			off += (start[i] + idx[i]) * strides[i]
		}
		copy(global[off:off+run], window[o:o+run])
		o += run
		if !layout.NextIndex(idx, dims[:rank-1]) {
			return
		}
	}
}
