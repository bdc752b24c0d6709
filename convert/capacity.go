package convert

import (
	"path/filepath"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
)

// Capacity checks, made before anything is allocated or created: a layout with a huge
// footprint (f32[2,2]{1,0:T(1048576,1048576)} is 4 TiB) must fail with both sizes named,
// not die out of memory or fill the disk.

// Limits bound the memory a Job holds and say what the machine has free. Zero fields
// take the defaults.
type Limits struct {
	// BandBytes is the size aimed at for one band of a banded conversion (see
	// relayout.PlanBands); default DefaultBandBytes.
	BandBytes int64
	// SparseMinBytes is the footprint from which an Out that is mostly padding is
	// written sparsely, element by element; default DefaultSparseMinBytes.
	SparseMinBytes int64
	// Memory and FreeDisk report the memory and the disk space (of the file system of
	// the directory dir) free for Out; ok is false when unknown, and nothing is checked.
	// Defaults SystemMemory and SystemFreeDisk.
	Memory   func() (bytes int64, ok bool)
	FreeDisk func(dir string) (bytes int64, ok bool)
}

// DefaultBandBytes: two bands of Out are held at once (one converted while the other
// is written) beside the mapped source's current band, so a conversion's memory is
// about three bands whatever the array's size; larger bands were no faster
// (bench/design-notes.md).
const DefaultBandBytes = 32 << 20

// DefaultSparseMinBytes: held whole, bf16[5] with T(2147483648) would take 4 GiB for
// 10 bytes of data.
const DefaultSparseMinBytes = 64 << 20

func (l Limits) orDefault() Limits {
	if l.BandBytes <= 0 {
		l.BandBytes = DefaultBandBytes
	}
	if l.SparseMinBytes <= 0 {
		l.SparseMinBytes = DefaultSparseMinBytes
	}
	if l.Memory == nil {
		l.Memory = SystemMemory
	}
	if l.FreeDisk == nil {
		l.FreeDisk = SystemFreeDisk
	}
	return l
}

// checkCapacity fails when converting into out needs more memory (memBytes: the
// buffers held at once) or more disk (fileBytes: out's size) than the machine has
// free; messages call out shown. An out written as a stream (a device, pipe or
// /dev/fd/N) takes no disk space; a symlink's is taken where its target lies.
func (j *Job) checkCapacity(out, shown string, fileBytes, memBytes int64) error {
	l, n := j.Limits.orDefault(), names{}
	if avail, ok := l.Memory(); ok && memBytes > avail {
		return n.errf(Output, "cannot hold {Out} in memory: converting needs %s (%d bytes), but only %s (%d bytes) is available",
			SizeText(memBytes), memBytes, SizeText(avail), avail)
	}
	if IsStream(out) {
		return nil
	}
	if free, ok := l.FreeDisk(filepath.Dir(buffer.LinkTarget(out))); ok && fileBytes > free {
		return n.errf(Output, "cannot write {Out} %s: no space left: it needs %s (%d bytes), but its file system has only %s (%d bytes) free",
			shown, SizeText(fileBytes), fileBytes, SizeText(free), free)
	}
	return nil
}

// convertMemory estimates the memory a conversion holds at once: the destination image
// (or one band of it, and a gathered band of the source), plus the byte-per-element
// arrays a plan makes for sub-byte sides.
func convertMemory(dst *layout.Indexer, src *buffer.Buffer, b *relayout.Bands) int64 {
	if b != nil {
		return b.Band(0).DstLen + b.Band(0).SrcLen
	}
	n := dst.FootprintBytes()
	for _, ix := range []*layout.Indexer{dst, src.Indexer()} {
		if ix.ElementBits() < 8 {
			n += ix.FootprintElements()
		}
	}
	return n
}
