package main

import (
	"testing"
	"unsafe"
)

// fakeFault is a recovered memory fault at an address, as runtime errors from
// debug.SetPanicOnFault are.
type fakeFault struct{ addr uintptr }

func (f fakeFault) Addr() uintptr { return f.addr }

// TestFaultIn: a fault inside a buffer names it and the byte; a fault elsewhere, or a
// panic that is not a fault, is not the caller's buffer.
func TestFaultIn(t *testing.T) {
	slab := make([]byte, 200) // the buffers at known places, with a gap between them
	src, dst, empty := slab[:100], slab[150:160], slab[100:100]
	bufs := []namedBuf{{"empty", empty}, {"source", src}, {"destination", dst}}
	at := func(b []byte, i int) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) + uintptr(i) }
	for _, c := range []struct {
		name string
		v    any
		want error
	}{
		{"first byte of source", fakeFault{at(src, 0)}, faultError{"source", 0, 100}},
		{"last byte of source", fakeFault{at(src, 99)}, faultError{"source", 99, 100}},
		{"in destination", fakeFault{at(dst, 7)}, faultError{"destination", 7, 10}},
		{"past destination", fakeFault{at(dst, 10)}, nil},
		{"between the buffers", fakeFault{at(src, 100)}, nil},
		{"address 0", fakeFault{0}, nil},
		{"not a fault", "boom", nil},
	} {
		got := faultIn(c.v, bufs)
		if got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	msg := faultError{"image", 4096, 8192}.Error()
	if want := "tpulayout: cannot read the image buffer: a memory fault at byte 4096 of its 8192, as when a memory-mapped file is truncated while it is read; the result is incomplete"; msg != want {
		t.Errorf("message %q", msg)
	}
}
