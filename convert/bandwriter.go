package convert

import (
	"sync"
	"sync/atomic"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/relayout"
)

// writeBands converts src band by band and writes each band at its place in f, after
// base bytes: the same bytes as [relayout.Bands.Run], but band k+1 is converted while
// a second goroutine writes band k (two band buffers), the writes go to the system in
// pieces of buffer.WriteChunk (see there for why), and the buffers are reused from one
// file to the next (All). The pages of a mapped src are released once the
// band that reads them is converted (only direct bands: a gathered band reads across
// the whole source, and CopyBand releases those pages itself as it goes).
func writeBands(f ImageWriter, base int64, src *buffer.Buffer, b *relayout.Bands, prog Progress, wrap func(error) error) error {
	type job struct {
		bd relayout.Band
		p  []byte
	}
	size := b.Band(0).DstLen
	// A buffer comes back on free with the bytes of the band it held once written, so
	// that progress is shown here, band by band, in order.
	type slot struct {
		p     []byte
		wrote int64
	}
	free := make(chan slot, 2)
	bufs := [2]*[]byte{getBand(size), getBand(size)}
	free <- slot{p: (*bufs[0])[:size]}
	free <- slot{p: (*bufs[1])[:size]}
	jobs := make(chan job, 1)
	closed := false
	done := make(chan struct{})
	defer func() {
		// Also on a panic here (a progress writer's): the writer must be done with
		// the buffers before they go back to the pool, and must not outlive f.
		if !closed {
			close(jobs)
		}
		<-done
		putBand(bufs[0])
		putBand(bufs[1])
	}()
	var failed atomic.Bool
	var werr error // the writer's; read after done
	var wpanic any // a panic in the writer, raised again here
	go func() {
		defer close(done)
		defer func() {
			if wpanic = recover(); wpanic != nil {
				failed.Store(true) // the converting side stops at done
			}
		}()
		w := buffer.ChunkedWriter{W: f}
		for j := range jobs {
			if werr == nil {
				if _, err := w.WriteAt(j.p, base+j.bd.DstOff); err != nil {
					werr = wrap(err)
					failed.Store(true)
				}
			}
			wrote := j.bd.DstLen
			if werr != nil {
				wrote = 0
			}
			free <- slot{j.p[:cap(j.p)][:size], wrote}
		}
	}()
	show := func(s slot) {
		if s.wrote > 0 {
			prog.Add(s.wrote)
		}
	}
	var scratch []byte
	if b.Gather() {
		scratch = make([]byte, b.Band(0).SrcLen)
	}
	var cerr error
	for k := range b.Len() {
		var p []byte
		select {
		case s := <-free:
			show(s)
			p = s.p
		case <-done: // the writer panicked
		}
		if failed.Load() {
			break
		}
		bd := b.Band(k)
		out := p[:bd.DstLen]
		if k == b.Len()-1 && bd.Rows != b.Band(0).Rows {
			// Its padding may sit where full bands had data: with WithPadLeave the
			// plan does not write it, so it must not keep an earlier band's bytes.
			clear(out)
		}
		if err := b.CopyBand(k, out, src, scratch); err != nil {
			cerr = inputf("cannot convert band %d: %s", k, err)
			break
		}
		if !bd.Gather {
			src.ReleasePages(bd.SrcOff, bd.SrcOff+bd.SrcLen)
		}
		jobs <- job{bd, out}
	}
	close(jobs)
	closed = true
	<-done
	if wpanic != nil {
		panic(wpanic)
	}
	for len(free) > 0 {
		show(<-free)
	}
	if werr != nil {
		return werr
	}
	return cerr
}

// bandPool keeps band buffers from one file to the next, so that All does
// not leave the garbage collector two fresh buffers per tensor (the heap would grow
// to twice the bands before they are collected). A buffer is zeroed when it is new
// only: a plan with WithPadLeave relies on full bands' padding staying as it was, which
// holds only for buffers that have held bands of the same plan, so getBand clears a
// reused one.
var bandPool sync.Pool

func getBand(n int64) *[]byte {
	if p, ok := bandPool.Get().(*[]byte); ok && int64(cap(*p)) >= n {
		clear((*p)[:n])
		return p
	}
	p := make([]byte, n)
	return &p
}

func putBand(p *[]byte) { bandPool.Put(p) }
