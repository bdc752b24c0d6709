//go:build cgo

package main

/*
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"runtime/cgo"
	"runtime/debug"
	"time"
	"unsafe"

	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/sharding"
	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// Every export returns 0 on success; on failure it returns 1 and sets *err to the
// error's JSON (see errorJSON), which the caller frees with tl_free. Panics are
// recovered into errors of kind "internal".

// setErr stores err's JSON in *out for the caller.
func setErr(out **C.char, err error) C.int {
	if out != nil {
		*out = C.CString(string(errorJSON(err)))
	}
	return 1
}

// guard turns a panic into an internal error; use as `defer guard(err, &rc)`. Every
// export that reads Python's memory sets debug.SetPanicOnFault first (and names the
// buffers with guardBufs): a memory-mapped buffer whose file another process truncated
// faults, which would otherwise kill the interpreter with SIGBUS.
func guard(out **C.char, rc *C.int) {
	if v := recover(); v != nil {
		*rc = setErr(out, internalError{v})
	}
}

// guardBufs is guard for exports that read or write the named buffers: a memory fault
// inside one of them is an input error naming it.
func guardBufs(out **C.char, rc *C.int, bufs ...namedBuf) {
	if v := recover(); v != nil {
		if e := faultIn(v, bufs); e != nil {
			*rc = setErr(out, e)
			return
		}
		*rc = setErr(out, internalError{v})
	}
}

// bytesOf views C memory (Python's buffer) as a Go slice for the length of one call.
func bytesOf(p unsafe.Pointer, n C.int64_t) []byte {
	if n == 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(p), int(n))
}

//export tl_free
func tl_free(p unsafe.Pointer) { C.free(p) }

// tl_read_image reads the image rel of the conversion under the bucket URL dir into
// buf, n bytes: the manifest's size for it, which the object must have.
//
//export tl_read_image
func tl_read_image(dir, rel *C.char, buf unsafe.Pointer, n C.int64_t, err **C.char) (rc C.int) {
	defer guard(err, &rc)
	if e := sharding.ReadImageURL(C.GoString(dir), C.GoString(rel), bytesOf(buf, n)); e != nil {
		return setErr(err, asCLI(e))
	}
	return 0
}

//export tl_plan_new
func tl_plan_new(dst, src *C.char, workers C.int, pad *C.char, padValue C.double, handle *C.uintptr_t, desc **C.char, err **C.char) (rc C.int) {
	defer guard(err, &rc)
	ds, ss := C.GoString(dst), C.GoString(src)
	p, e := newPlan(ds, ss, int(workers), C.GoString(pad), float64(padValue))
	if e != nil {
		return setErr(err, e)
	}
	*handle = C.uintptr_t(cgo.NewHandle(p))
	*desc = C.CString(string(planJSON(p, ds, ss)))
	return 0
}

//export tl_plan_copy
func tl_plan_copy(handle C.uintptr_t, dst unsafe.Pointer, dstLen C.int64_t, src unsafe.Pointer, srcLen C.int64_t, err **C.char) (rc C.int) {
	d, s := bytesOf(dst, dstLen), bytesOf(src, srcLen)
	defer guardBufs(err, &rc, namedBuf{"source", s}, namedBuf{"destination", d})
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	p := cgo.Handle(handle).Value().(*relayout.Plan)
	if e := p.CopyBytes(d, s); e != nil {
		return setErr(err, e)
	}
	return 0
}

//export tl_plan_free
func tl_plan_free(handle C.uintptr_t) { cgo.Handle(handle).Delete() }

//export tl_info
func tl_info(shape, gen *C.char, out, err **C.char) (rc C.int) {
	defer guard(err, &rc)
	b, e := info(C.GoString(shape), C.GoString(gen), false)
	if e != nil {
		return setErr(err, e)
	}
	*out = C.CString(string(b))
	return 0
}

// tl_report builds the report a JSON request names (see reportRequest) and stores its
// JSON in *out.
//
//export tl_report
func tl_report(request *C.char, out, err **C.char) (rc C.int) {
	defer guard(err, &rc)
	b, e := buildReport(C.GoString(request))
	if e != nil {
		return setErr(err, e)
	}
	*out = C.CString(string(b))
	return 0
}

//export tl_default_layout
func tl_default_layout(dtype *C.char, dims *C.int64_t, rank C.int, gen *C.char, out, err **C.char) (rc C.int) {
	defer guard(err, &rc)
	d := make([]int64, int(rank))
	if rank > 0 {
		copy(d, unsafe.Slice((*int64)(unsafe.Pointer(dims)), int(rank)))
	}
	s, e := defaultLayout(C.GoString(dtype), d, C.GoString(gen))
	if e != nil {
		return setErr(err, e)
	}
	*out = C.CString(s)
	return 0
}

//export tl_validate
func tl_validate(dump unsafe.Pointer, dumpLen C.int64_t, dumpShape *C.char, ref unsafe.Pointer, refLen C.int64_t, refShape, opts *C.char, out, err **C.char) (rc C.int) {
	d, r := bytesOf(dump, dumpLen), bytesOf(ref, refLen)
	defer guardBufs(err, &rc, namedBuf{"dump", d}, namedBuf{"reference", r})
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	b, e := compareBytes(d, C.GoString(dumpShape), r, C.GoString(refShape), C.GoString(opts))
	if e != nil {
		return setErr(err, e)
	}
	*out = C.CString(string(b))
	return 0
}

// tl_checksum stores in *out the checksum alg (crc32c, sha256: a manifest's
// "checksum") of the n bytes at p, in lowercase hex as the manifest writes it: Python's
// check of an image against its manifest (its standard library has no CRC-32C).
//
//export tl_checksum
func tl_checksum(alg *C.char, p unsafe.Pointer, n C.int64_t, out, err **C.char) (rc C.int) {
	data := bytesOf(p, n)
	defer guardBufs(err, &rc, namedBuf{"image", data})
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	sum, e := manifest.ChecksumOf(C.GoString(alg), data)
	if e != nil {
		return setErr(err, e)
	}
	*out = C.CString(sum)
	return 0
}

// tl_plan_time copies reps times in Go and stores the elapsed nanoseconds in *ns: the
// benchmark's yardstick for the cost of crossing the boundary (python/bench.py).
//
//export tl_plan_time
func tl_plan_time(handle C.uintptr_t, dst unsafe.Pointer, dstLen C.int64_t, src unsafe.Pointer, srcLen C.int64_t, reps C.int64_t, ns *C.int64_t, err **C.char) (rc C.int) {
	d, s := bytesOf(dst, dstLen), bytesOf(src, srcLen)
	defer guardBufs(err, &rc, namedBuf{"source", s}, namedBuf{"destination", d})
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	p := cgo.Handle(handle).Value().(*relayout.Plan)
	start := time.Now()
	for range int64(reps) {
		if e := p.CopyBytes(d, s); e != nil {
			return setErr(err, e)
		}
	}
	*ns = C.int64_t(time.Since(start).Nanoseconds())
	return 0
}
