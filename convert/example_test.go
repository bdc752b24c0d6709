package convert_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/layout"
)

// Example converts a host array into the v5e default layout of bf16 and back, and
// shows an error's kind and wording.
func Example() {
	dir, _ := os.MkdirTemp("", "convert-example")
	defer os.RemoveAll(dir)
	host := buffer.MustNew(layout.MustParse("f32[20,300]"))
	for i := range host.Len() {
		host.SetF32([]int64{i / 300, i % 300}, float32(i%7))
	}
	in := filepath.Join(dir, "w.npy")
	if err := npy.Write(in, host); err != nil {
		fmt.Println(err)
		return
	}

	// Host → device image, converting f32 to bf16 on the way.
	img := filepath.Join(dir, "w.bin")
	r, err := (&convert.Job{In: in, Out: img, To: "tpu:v5e", DType: "bf16"}).Run()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Shape, r.Bytes, "bytes")

	// Device image → host array: From gives the raw image's shape.
	back := filepath.Join(dir, "back.npy")
	r, err = (&convert.Job{In: img, Out: back, From: r.Shape.String(), To: "f32"}).Run()
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := npy.Read(back)
	fmt.Println(r.Shape, b.F32([]int64{19, 299}) == host.F32([]int64{19, 299}))

	// Errors name the field they are about and the Job's fields in their message,
	// which a caller words its own way (a command line by its flags).
	_, err = (&convert.Job{In: in, Out: img, Pad: "0.1", To: "tpu:v5e", DType: "bf16"}).Run()
	var e *convert.Error
	errors.As(err, &e)
	fmt.Println(e.Kind, "error about", e.Field+":", e)
	_, err = (&convert.Job{In: in, Out: img}).Run()
	errors.As(err, &e)
	flags := map[string]string{"In": "IN", "Out": "OUT", "To": "--to"}
	fmt.Println(e.Kind, "error:", e.Words(func(f string) string { return flags[f] }, nil))
	// Output:
	// bf16[20,300]{1,0:T(8,128)(2,1)} 18432 bytes
	// f32[20,300]{1,0} true
	// setting error about Pad: Pad 0.1 is not exact in bf16, which would hold 0.10009765625
	// setting error: missing --to: the layout of the device image OUT, such as 'bf16[…]{1,0:T(8,128)(2,1)}', a layout '{1,0:T(8,128)(2,1)}' or tpu:v5e
}

// ExampleCheck compares a device image with the array it was made from, as the
// command's validate does: once as written, once with one element changed.
func ExampleCheck() {
	dir, _ := os.MkdirTemp("", "check-example")
	defer os.RemoveAll(dir)
	host := buffer.MustNew(layout.MustParse("f32[20,300]"))
	for i := range host.Len() {
		host.SetF32([]int64{i / 300, i % 300}, float32(i%7)/4)
	}
	ref := filepath.Join(dir, "w.npy")
	img := filepath.Join(dir, "w.bin")
	npy.Write(ref, host)
	r, err := (&convert.Job{In: ref, Out: img, To: "bf16[20,300]{1,0:T(8,128)(2,1)}"}).Run()
	if err != nil {
		fmt.Println(err)
		return
	}
	c := &convert.Check{Dump: img, Layout: r.Shape.String(), Ref: ref}
	res, _ := c.Run()
	fmt.Println(res.Report.OK, res.Report.Elements, "elements compared")

	b, _ := os.ReadFile(img)
	b[2] ^= 0x01 // one bit of element (0,1)
	os.WriteFile(img, b, 0o644)
	res, _ = c.Run()
	fmt.Println(res.Report.OK, res.Report.Summary())
	// Output:
	// true 6000 elements compared
	// false 1 of 6000 elements differ
}
