package convert

import (
	"context"
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
func writeBands(ctx context.Context, f ImageWriter, base int64, src *buffer.Buffer, b *relayout.Bands, prog Progress, wrap func(error) error) error {
	size := b.Band(0).DstLen
	w := &bandWriter{f: f, base: base, size: size, wrap: wrap,
		free: make(chan bandSlot, 2), jobs: make(chan bandJob, 1), done: make(chan struct{})}
	bufs := [2]*[]byte{getBand(size), getBand(size)}
	w.free <- bandSlot{p: (*bufs[0])[:size]}
	w.free <- bandSlot{p: (*bufs[1])[:size]}
	closed := false
	defer func() {
		// Also on a panic here (a progress writer's): the writer must be done with
		// the buffers before they go back to the pool, and must not outlive f.
		if !closed {
			close(w.jobs)
		}
		<-w.done
		putBand(bufs[0])
		putBand(bufs[1])
	}()
	go w.run()
	show := func(s bandSlot) {
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
		case s := <-w.free:
			show(s)
			p = s.p
		case <-w.done: // the writer panicked
		}
		if w.failed.Load() {
			break
		}
		if err := ctx.Err(); err != nil {
			cerr = wrap(err)
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
		w.jobs <- bandJob{bd, out}
	}
	close(w.jobs)
	closed = true
	<-w.done
	if w.panicked != nil {
		panic(w.panicked)
	}
	for len(w.free) > 0 {
		show(<-w.free)
	}
	if w.err != nil {
		return w.err
	}
	return cerr
}

// bandJob is a converted band to write.
type bandJob struct {
	bd relayout.Band
	p  []byte
}

// bandSlot is a band buffer coming back from the writer with the bytes it wrote, so
// that progress is shown by writeBands, band by band, in order.
type bandSlot struct {
	p     []byte
	wrote int64
}

// bandWriter is writeBands' second goroutine: it writes the bands of jobs and hands
// their buffers back on free.
type bandWriter struct {
	f          ImageWriter
	base, size int64
	wrap       func(error) error
	free       chan bandSlot
	jobs       chan bandJob
	done       chan struct{} // closed when run returns
	failed     atomic.Bool   // a write failed or run panicked: converting stops
	err        error         // the first write's error; read after done
	panicked   any           // a panic in run, raised again by writeBands
}

func (w *bandWriter) run() {
	defer close(w.done)
	defer func() {
		if w.panicked = recover(); w.panicked != nil {
			w.failed.Store(true) // the converting side stops at done
		}
	}()
	cw := buffer.ChunkedWriter{W: w.f}
	for j := range w.jobs {
		if w.err == nil {
			if _, err := cw.WriteAt(j.p, w.base+j.bd.DstOff); err != nil {
				w.err = w.wrap(err)
				w.failed.Store(true)
			}
		}
		wrote := j.bd.DstLen
		if w.err != nil {
			wrote = 0
		}
		w.free <- bandSlot{j.p[:cap(j.p)][:w.size], wrote}
	}
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
