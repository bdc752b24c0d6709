package main

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
)

// Capacity checks, made before anything is allocated or created: a layout with a huge
// footprint (f32[2,2]{1,0:T(1048576,1048576)} is 4 TiB) must fail with both sizes named,
// not die out of memory or fill the disk.

// Where the checks ask the machine; tests replace them. ok is false when unknown.
var (
	availableMemory = systemMemory
	freeDiskSpace   = systemFreeDisk
)

// checkCapacity fails when converting into OUT needs more memory (memBytes: the buffers
// held at once) or more disk (fileBytes: OUT's size) than the machine has free. An OUT
// written as a stream (a device, pipe or /dev/fd/N) takes no disk space; a symlink's is
// taken where its target lies.
func checkCapacity(out string, fileBytes, memBytes int64) error {
	if avail, ok := availableMemory(); ok && memBytes > avail {
		return fmt.Errorf("cannot hold OUT in memory: converting needs %s (%d bytes), but only %s (%d bytes) is available",
			sizeText(memBytes), memBytes, sizeText(avail), avail)
	}
	if isStream(out) {
		return nil
	}
	if free, ok := freeDiskSpace(filepath.Dir(buffer.LinkTarget(out))); ok && fileBytes > free {
		return fmt.Errorf("cannot write OUT %s: no space left: it needs %s (%d bytes), but its file system has only %s (%d bytes) free",
			out, sizeText(fileBytes), fileBytes, sizeText(free), free)
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

// The work show does is bounded whatever --max and --max-slices say: every shown
// element's offset is computed and printed, and an SVG holds about 100 bytes per cell.
const (
	maxShowCells = 1 << 22
	maxSVGCells  = 1 << 18
)

// checkShowCells fails when show would draw more than it handles.
func checkShowCells(shape string, cells int64, svg bool) error {
	limit, what := int64(maxShowCells), "show prints at most"
	if svg {
		limit, what = maxSVGCells, "an SVG figure holds at most"
	}
	if cells > limit {
		return fmt.Errorf("%s has %d elements to show, but %s %d; show a smaller shape", shape, cells, what, limit)
	}
	return nil
}

// satMul is a*b for non-negative numbers, saturating at MaxInt64.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}
