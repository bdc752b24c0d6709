//go:build cgo

package main

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// callExport calls the export fn the way ctypes does, without cgo in the test: each
// argument is converted to fn's parameter type. A string is passed as a NUL-terminated
// C string, a []byte or []int64 as a pointer to its first element (nil when empty), a
// *string as an out C string that is read and freed with tl_free after the call, a
// *int64 or *uint64 as an out integer, nil as a nil pointer and a number as the C
// number. It returns the export's status (0 for exports without one).
func callExport(t *testing.T, fn any, args ...any) int {
	t.Helper()
	v := reflect.ValueOf(fn)
	ft := v.Type()
	if ft.NumIn() != len(args) {
		t.Fatalf("%v takes %d arguments, given %d", ft, ft.NumIn(), len(args))
	}
	in := make([]reflect.Value, len(args))
	var after []func()
	var keep [][]byte
	for i, a := range args {
		pt := ft.In(i)
		switch a := a.(type) {
		case nil:
			in[i] = reflect.Zero(pt)
		case string:
			b := append([]byte(a), 0)
			keep = append(keep, b)
			in[i] = reflect.NewAt(pt.Elem(), unsafe.Pointer(&b[0]))
		case []byte:
			in[i] = reflect.ValueOf(unsafe.Pointer(unsafe.SliceData(a)))
		case []int64:
			in[i] = reflect.Zero(pt)
			if len(a) > 0 {
				in[i] = reflect.NewAt(pt.Elem(), unsafe.Pointer(&a[0]))
			}
		case *string:
			p := reflect.New(pt.Elem())
			in[i] = p
			after = append(after, func() { *a = takeCString(p.Elem().UnsafePointer()) })
		case *int64:
			p := reflect.New(pt.Elem())
			in[i] = p
			after = append(after, func() { *a = p.Elem().Int() })
		case *uint64:
			p := reflect.New(pt.Elem())
			in[i] = p
			after = append(after, func() { *a = p.Elem().Uint() })
		default:
			in[i] = reflect.ValueOf(a).Convert(pt)
		}
	}
	out := v.Call(in)
	for _, f := range after {
		f()
	}
	runtime.KeepAlive(keep)
	if len(out) == 0 {
		return 0
	}
	return int(out[0].Int())
}

// takeCString copies the C string at p and frees it; nil is "".
func takeCString(p unsafe.Pointer) string {
	if p == nil {
		return ""
	}
	var b []byte
	for i := uintptr(0); ; i++ {
		c := *(*byte)(unsafe.Add(p, i))
		if c == 0 {
			break
		}
		b = append(b, c)
	}
	tl_free(p)
	return string(b)
}

// apiErr decodes an error the exports set.
func apiErr(t *testing.T, s string) apiError {
	t.Helper()
	var e apiError
	if err := json.Unmarshal([]byte(s), &e); err != nil {
		t.Fatalf("error JSON %q: %v", s, err)
	}
	return e
}

func f32Bytes(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// A plan made, used, timed and freed through the C ABI: a row-major f32[2,3] copied
// into column-major order.
func TestExportPlanLifecycle(t *testing.T) {
	var handle uint64
	var desc, errs string
	if rc := callExport(t, tl_plan_new, "f32[2,3]{0,1}", "f32[2,3]", 1, "zero", 0.0, &handle, &desc, &errs); rc != 0 {
		t.Fatalf("tl_plan_new: rc %d, error %s", rc, errs)
	}
	var d struct {
		Dst      string `json:"dst"`
		SrcBytes int64  `json:"src_bytes"`
		DstBytes int64  `json:"dst_bytes"`
	}
	if err := json.Unmarshal([]byte(desc), &d); err != nil || d.Dst != "f32[2,3]{0,1}" || d.SrcBytes != 24 || d.DstBytes != 24 {
		t.Fatalf("description %s (%v)", desc, err)
	}
	src := f32Bytes(0, 1, 2, 3, 4, 5)
	want := string(f32Bytes(0, 3, 1, 4, 2, 5))
	dst := make([]byte, 24)
	if rc := callExport(t, tl_plan_copy, handle, dst, 24, src, 24, &errs); rc != 0 || string(dst) != want {
		t.Fatalf("tl_plan_copy: rc %d (%s), dst %v", rc, errs, dst)
	}
	clear(dst)
	var ns int64
	if rc := callExport(t, tl_plan_time, handle, dst, 24, src, 24, 3, &ns, &errs); rc != 0 || string(dst) != want || ns <= 0 {
		t.Fatalf("tl_plan_time: rc %d (%s), %d ns, dst %v", rc, errs, ns, dst)
	}
	if rc := callExport(t, tl_plan_copy, handle, dst, 20, src, 24, &errs); rc != 1 || apiErr(t, errs).Kind != "size" {
		t.Errorf("short destination: rc %d, error %s", rc, errs)
	}
	if rc := callExport(t, tl_plan_time, handle, dst, 24, src, 23, 1, &ns, &errs); rc != 1 || apiErr(t, errs).Kind != "size" {
		t.Errorf("timed short source: rc %d, error %s", rc, errs)
	}
	callExport(t, tl_plan_free, handle)
	// A freed handle is a caller's bug: reported as an internal error, not a crash.
	if rc := callExport(t, tl_plan_copy, handle, dst, 24, src, 24, &errs); rc != 1 || apiErr(t, errs).Kind != "internal" {
		t.Errorf("freed plan: rc %d, error %s", rc, errs)
	}
}

func TestExportErrors(t *testing.T) {
	var handle uint64
	var desc, errs string
	for _, c := range []struct {
		name string
		call func() int
		kind string
		pos  int
	}{
		{"plan layout", func() int {
			return callExport(t, tl_plan_new, "f32[2,3]{0,1", "f32[2,3]", 0, "", 0.0, &handle, &desc, &errs)
		}, "layout", 12},
		{"plan shapes", func() int {
			return callExport(t, tl_plan_new, "f32[3,2]", "f32[2,3]", 0, "", 0.0, &handle, &desc, &errs)
		}, "shape", -1},
		{"plan pad", func() int {
			return callExport(t, tl_plan_new, "u8[2,3]", "f32[2,3]", 0, "value", -1.0, &handle, &desc, &errs)
		}, "value", -1},
		{"info", func() int { return callExport(t, tl_info, "f32[2", "", &desc, &errs) }, "layout", 5},
		{"info generation", func() int { return callExport(t, tl_info, "f32[2]", "v99", &desc, &errs) }, "value", -1},
		{"report", func() int { return callExport(t, tl_report, `{"report":"nope"}`, &desc, &errs) }, "value", -1},
		{"default layout", func() int {
			return callExport(t, tl_default_layout, "bf17", []int64{8}, 1, "", &desc, &errs)
		}, "value", -1},
		{"default layout generation", func() int {
			return callExport(t, tl_default_layout, "bf16", []int64{8}, 1, "v99", &desc, &errs)
		}, "value", -1},
		{"validate", func() int {
			return callExport(t, tl_validate, make([]byte, 8), 8, "f32[3]", make([]byte, 12), 12, "f32[3]", "", &desc, &errs)
		}, "size", -1},
		{"checksum", func() int { return callExport(t, tl_checksum, "md5", []byte("x"), 1, &desc, &errs) }, "value", -1},
	} {
		errs = ""
		if rc := c.call(); rc != 1 {
			t.Errorf("%s: rc %d, want 1", c.name, rc)
			continue
		}
		if e := apiErr(t, errs); e.Kind != c.kind || e.Pos != c.pos || e.Msg == "" {
			t.Errorf("%s: error %+v, want kind %s at %d", c.name, e, c.kind, c.pos)
		}
	}
	// A caller that passes no error pointer still gets the status.
	if rc := callExport(t, tl_info, "f32[2", "", &desc, nil); rc != 1 {
		t.Errorf("no error pointer: rc %d", rc)
	}
}

func TestExportReports(t *testing.T) {
	var out, errs string
	if rc := callExport(t, tl_info, "bf16[300,1000]{1,0:T(8,128)(2,1)}", "v5e", &out, &errs); rc != 0 || !strings.Contains(out, `"tile_count":304`) {
		t.Errorf("tl_info: rc %d, %s %s", rc, out, errs)
	}
	if rc := callExport(t, tl_report, `{"report":"explain","layout":"f32[3,5]","index":[2,1]}`, &out, &errs); rc != 0 || !strings.Contains(out, `"offset":11`) {
		t.Errorf("tl_report: rc %d, %s %s", rc, out, errs)
	}
	for _, c := range []struct {
		dtype string
		dims  []int64
		want  string
	}{
		{"bf16", []int64{256, 1024}, "bf16[256,1024]{1,0:T(8,128)(2,1)}"},
		{" f32 ", []int64{8, 128}, "f32[8,128]{1,0:T(8,128)}"},
		{"f32", nil, "f32[]"},
	} {
		if rc := callExport(t, tl_default_layout, c.dtype, c.dims, len(c.dims), "", &out, &errs); rc != 0 || !strings.HasPrefix(out, c.want) {
			t.Errorf("tl_default_layout(%q, %v): rc %d, %q %s; want %q", c.dtype, c.dims, rc, out, errs, c.want)
		}
	}
	ref := f32Bytes(1, 2, 3)
	if rc := callExport(t, tl_validate, f32Bytes(1, 2, 3), 12, "f32[3]", ref, 12, "f32[3]", `{"max_listed":1}`, &out, &errs); rc != 0 || !strings.Contains(out, `"ok":true`) {
		t.Errorf("tl_validate equal: rc %d, %s %s", rc, out, errs)
	}
	if rc := callExport(t, tl_validate, f32Bytes(1, 2, 4), 12, "f32[3]", ref, 12, "f32[3]", "", &out, &errs); rc != 0 || !strings.Contains(out, `"ok":false`) {
		t.Errorf("tl_validate different: rc %d, %s %s", rc, out, errs)
	}
}

// The checksums are the standard ones: CRC-32C's check value and SHA-256 of "abc".
func TestExportChecksum(t *testing.T) {
	for _, c := range []struct{ alg, data, want string }{
		{"crc32c", "123456789", "e3069283"},
		{"sha256", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"crc32c", "", "00000000"},
	} {
		var out, errs string
		if rc := callExport(t, tl_checksum, c.alg, []byte(c.data), len(c.data), &out, &errs); rc != 0 || out != c.want {
			t.Errorf("%s(%q): rc %d, %q %s; want %s", c.alg, c.data, rc, out, errs, c.want)
		}
	}
}

func TestExportReadImage(t *testing.T) {
	dir := t.TempDir()
	body := []byte("0123456789")
	if err := os.WriteFile(filepath.Join(dir, "img.bin"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(body))
	var errs string
	if rc := callExport(t, tl_read_image, dir, "img.bin", buf, len(buf), &errs); rc != 0 || string(buf) != string(body) {
		t.Fatalf("tl_read_image: rc %d, %q %s", rc, buf, errs)
	}
	for _, c := range []struct {
		rel  string
		n    int
		want string
	}{
		{"img.bin", 9, "9"},
		{"../img.bin", 10, "../img.bin"},
		{"missing.bin", 10, "missing.bin"},
	} {
		errs = ""
		if rc := callExport(t, tl_read_image, dir, c.rel, buf, c.n, &errs); rc != 1 || !strings.Contains(apiErr(t, errs).Msg, c.want) {
			t.Errorf("%s, %d bytes: rc %d, error %s; want it to name %q", c.rel, c.n, rc, errs, c.want)
		}
	}
}

// A memory-mapped buffer whose file is truncated under the call is an error naming the
// buffer and the byte, not a crash of the interpreter.
func TestExportFaultInBuffer(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "mapped"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const n = 1 << 16
	if err := f.Truncate(n); err != nil {
		t.Fatal(err)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, n, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(m)
	if err := f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	var out, errs string
	if rc := callExport(t, tl_checksum, "crc32c", m, n, &out, &errs); rc != 1 {
		t.Fatalf("checksum of a truncated mapping: rc %d, %q", rc, out)
	}
	e := apiErr(t, errs)
	if e.Kind != "value" || !strings.Contains(e.Msg, "cannot read the image buffer: a memory fault at byte 0 of its 65536") {
		t.Errorf("error %+v", e)
	}
}
