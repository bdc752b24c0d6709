package relayout

import (
	"encoding/binary"
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
)

// subByte is a plan for sub-byte elements (E(4), E(2) or E(1) on either side) run on
// bytes: the source's elements unpacked one per byte in their memory order, a plan
// between the two layouts without E(n), and its result packed back. E(n) changes no
// element's offset, only its width, so the inner plan moves the same elements with
// the kernels of 8-bit types, where the direct plan takes sub-byte elements one by one.
type subByte struct {
	inner        *Plan                // the same footprints and options, on bytes
	sbits, dbits int                  // the sides' element widths: below 8 is packed
	predTruth    bool                 // pred into fewer bits: the source's nonzero become 1
	bufs         *freeList[[2][]byte] // unpacked source and destination
	// The passes' parts for the worker pool, over packed bytes: made once (see parallel).
	unpackSrc, unpackDst, packDst func(dst, src []byte, lo, hi int64)
}

// planSubByte returns the sub-byte executor for dst ← src when either side packs
// elements below a byte, unless the options force the per-element path.
func planSubByte(p *Plan, dst, src layout.Shape, opts []Option) *subByte {
	if p.sbits >= 8 && p.dbits >= 8 || p.opts.generic {
		return nil
	}
	unpacked := func(s layout.Shape, bits int) layout.Shape {
		if bits < 8 {
			s.Layout.ElementBits = 0 // the type's storage width: a byte
		}
		return s
	}
	inner, err := NewPlan(unpacked(dst, p.dbits), unpacked(src, p.sbits), opts...)
	if err != nil || inner.Kernel() == "reference" ||
		inner.src.FootprintElements() != p.src.FootprintElements() || inner.dst.FootprintElements() != p.dst.FootprintElements() {
		return nil
	}
	b := &subByte{inner: inner, sbits: p.sbits, dbits: p.dbits}
	b.unpackSrc = func(out, in []byte, lo, hi int64) { unpackPart(out, in, b.sbits, lo, hi) }
	b.unpackDst = func(out, in []byte, lo, hi int64) { unpackPart(out, in, b.dbits, lo, hi) }
	b.packDst = func(out, in []byte, lo, hi int64) { packPart(out, in, b.dbits, lo, hi) }
	// Any nonzero pred is true: packing into fewer bits keeps the low ones alone, so
	// 0x02 would turn false. The inner plan copies pred bytes as they are (as a
	// relayout between equal widths does), so the source's are made 0 or 1 first, in
	// the unpacked copy (source padding is never read; the destination's, which a
	// WithPadLeave keeps, is not touched).
	b.predTruth = dst.DType == layout.Pred && src.DType == layout.Pred && p.dbits < p.sbits
	b.bufs = newFreeList(1, 1, b.newBufs) // made now, so that Copy does not allocate
	return b
}

func (b *subByte) newBufs() (bufs [2][]byte) {
	if b.sbits < 8 || b.predTruth {
		bufs[0] = make([]byte, b.inner.src.FootprintElements())
	}
	if b.dbits < 8 {
		bufs[1] = make([]byte, b.inner.dst.FootprintElements())
	}
	return bufs
}

// kernel names the passes, as Plan.Kernel does.
func (b *subByte) kernel() string {
	k := b.inner.Kernel()
	if b.sbits < 8 {
		k = "unpack+" + k
	}
	if b.dbits < 8 {
		k += "+pack"
	}
	return k
}

func (b *subByte) describe() string {
	return fmt.Sprintf("on bytes (%s): %s", b.kernel(), b.inner)
}

func (b *subByte) copy(dst, src []byte) {
	bufs := b.bufs.get()
	s, d := src, dst
	if b.sbits < 8 {
		s = bufs[0]
		b.split(b.unpackSrc, s, src)
	} else if b.predTruth {
		s = bufs[0]
		copy(s, src)
	}
	if b.predTruth {
		truthBytes(s)
	}
	if b.dbits < 8 {
		d = bufs[1]
		if b.inner.opts.pad == padLeave { // padding is left alone: start from the destination's
			b.split(b.unpackDst, d, dst)
		}
	}
	b.inner.exec.copy(d, s)
	if b.dbits < 8 {
		b.split(b.packDst, dst, d)
	}
	b.bufs.put(bufs)
}

// split runs a pass over the packed bytes of packed (the pass's first or second
// argument) on the plan's workers, in parts of 64 KiB or more.
func (b *subByte) split(part func(dst, src []byte, lo, hi int64), dst, src []byte) {
	bytes := int64(min(len(dst), len(src)))
	if w := min(int64(b.inner.opts.workers), bytes>>16); w > 1 {
		parallel(part, dst, src, bytes, w)
	} else {
		part(dst, src, 0, bytes)
	}
}

// unpackPart unpacks the elements of packed bytes [lo, hi) of in into out; packPart
// packs the elements of out's bytes [lo, hi) from in.
func unpackPart(out, in []byte, w int, lo, hi int64) {
	per := int64(8 / w)
	unpack(out[lo*per:min(hi*per, int64(len(out)))], in[lo:hi], w)
}

func packPart(out, in []byte, w int, lo, hi int64) {
	per := int64(8 / w)
	pack(out[lo:hi], in[lo*per:min(hi*per, int64(len(in)))], w)
}

// spread[w] maps a byte of w-bit elements to its 8/w elements, one a byte, as the low
// bytes of a little-endian word.
var spread = func() (t [5][256]uint64) {
	for _, w := range []int{1, 2, 4} {
		for x := range 256 {
			for k := 0; k < 8/w; k++ {
				t[w][x] |= uint64(x>>(k*w)&(1<<w-1)) << (8 * k)
			}
		}
	}
	return t
}()

// unpack writes the len(out) w-bit elements packed in in (least-significant bits
// first) to out, one a byte (zero-extended).
func unpack(out, in []byte, w int) {
	per := 8 / w
	t := &spread[w]
	full := len(out) / per
	j := 0
	if w == 4 {
		j = unpackNibbles(out[:2*full], in[:full])
	}
	var word [8]byte
	for ; j < full; j++ {
		x := in[j]
		o := out[j*per : (j+1)*per]
		switch w {
		case 4:
			binary.LittleEndian.PutUint16(o, uint16(t[x]))
		case 2:
			binary.LittleEndian.PutUint32(o, uint32(t[x]))
		default:
			binary.LittleEndian.PutUint64(o, t[x])
		}
	}
	if rest := out[full*per:]; len(rest) > 0 {
		binary.LittleEndian.PutUint64(word[:], t[in[full]])
		copy(rest, word[:])
	}
}

// unpackNibbles unpacks nibbles 64 bytes at a time and returns the bytes of in it
// consumed; packNibbles packs 128 elements at a time and returns the elements of in it
// consumed. The work is in blocks over array pointers, as in package simd's portable
// kernels: written in unpack's and pack's loops the compiler spilled the registers and
// kept the bounds checks (bench/design-notes.md).
func unpackNibbles(out, in []byte) int {
	n := 0
	for ; len(in)-n >= 64 && len(out)-2*n >= 128; n += 64 {
		unpackBlock((*[128]byte)(out[2*n:]), (*[64]byte)(in[n:]))
	}
	return n
}

func packNibbles(out, in []byte) int {
	n := 0
	for ; len(in)-n >= 128 && len(out)-n/2 >= 64; n += 128 {
		packBlock((*[64]byte)(out[n/2:]), (*[128]byte)(in[n:]))
	}
	return n
}

// unpackBlock spreads four bytes to eight elements at a time: to 16-bit lanes, then
// the nibbles of each apart.
//
//go:noinline
func unpackBlock(out *[128]byte, in *[64]byte) {
	for j := 0; j < 64; j += 4 {
		x := uint64(binary.LittleEndian.Uint32(in[j:]))
		x = (x | x<<16) & 0x0000ffff0000ffff
		x = (x | x<<8) & 0x00ff00ff00ff00ff
		binary.LittleEndian.PutUint64(out[2*j:], (x|x<<4)&0x0f0f0f0f0f0f0f0f)
	}
}

// packBlock joins eight elements to four bytes at a time.
//
//go:noinline
func packBlock(out *[64]byte, in *[128]byte) {
	for i := 0; i < 128; i += 8 {
		x := binary.LittleEndian.Uint64(in[i:]) & 0x0f0f0f0f0f0f0f0f
		x = (x | x>>4) & 0x00ff00ff00ff00ff
		x = (x | x>>8) & 0x0000ffff0000ffff
		binary.LittleEndian.PutUint32(out[i/2:], uint32(x|x>>16))
	}
}

// pack packs the len(in) elements of in (one a byte, low w bits used) into out, w bits
// each, least-significant first. The bits of out's last byte beyond the elements keep
// their value.
func pack(out, in []byte, w int) {
	per := 8 / w
	full := len(in) / per
	if w == 4 {
		for i := packNibbles(out[:full], in[:2*full]); i < 2*full; i += 2 {
			out[i/2] = in[i]&0xf | in[i+1]<<4
		}
	} else {
		m := byte(1<<w - 1)
		for j := range full {
			var x byte
			for k, e := range in[j*per : (j+1)*per] {
				x |= (e & m) << (k * w)
			}
			out[j] = x
		}
	}
	if rest := in[full*per:]; len(rest) > 0 {
		m := byte(1<<w - 1)
		x := out[full]
		for k, e := range rest {
			x = x&^(m<<(k*w)) | (e&m)<<(k*w)
		}
		out[full] = x
	}
}

// truthBytes turns every nonzero byte of p into 1.
func truthBytes(p []byte) {
	for i, c := range p {
		if c != 0 {
			p[i] = 1
		}
	}
}
