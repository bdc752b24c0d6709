package buffer

// releaseBytes is how many bytes of a mapped buffer a pass reads between releases of the
// pages it touched (see [Buffer.ReleasePages]): resident memory stays about that much a
// mapped buffer, whatever the array's size.
const releaseBytes = 16 << 20

// pageWindow follows the element offsets a pass reads from a mapped buffer and releases
// their pages every releaseBytes read. A nil *pageWindow, the one of a buffer in
// memory, does nothing.
type pageWindow struct {
	b      *Buffer
	lo, hi int64 // the element offsets read since the last release, hi inclusive
	read   int64 // bytes read since the last release
}

// newPageWindow returns the window of b, nil when b is not mapped.
func newPageWindow(b *Buffer) *pageWindow {
	if !b.mapped {
		return nil
	}
	w := &pageWindow{b: b}
	w.reset()
	return w
}

func (w *pageWindow) reset() { w.lo, w.hi, w.read = 1<<63-1, -1, 0 }

// add records that n elements were read at element offsets within [lo, hi], and
// releases the pages read so far once they reach releaseBytes.
func (w *pageWindow) add(lo, hi, n int64) {
	if w == nil {
		return
	}
	w.lo, w.hi = min(w.lo, lo), max(w.hi, hi)
	if w.read += n * int64(w.b.bits) / 8; w.read >= releaseBytes {
		w.release()
	}
}

// addAll records n elements read anywhere in the buffer.
func (w *pageWindow) addAll(n int64) {
	if w != nil {
		w.add(0, w.b.ix.FootprintElements()-1, n)
	}
}

// release drops the pages of the offsets read since the last release.
func (w *pageWindow) release() {
	if w == nil || w.hi < w.lo {
		return
	}
	bits := int64(w.b.bits)
	from, to := w.lo*bits/8, min((w.hi+1)*bits/8+1, int64(len(w.b.Data)))
	w.b.ReleasePages(from, to)
	w.reset()
}
