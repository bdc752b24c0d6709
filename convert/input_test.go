package convert_test

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
)

// counting returns a buffer of shape text whose bytes count up from seed.
func counting(text string, seed byte) *buffer.Buffer {
	b := buffer.MustNew(layout.MustParse(text))
	for i := range b.Data {
		b.Data[i] = seed + byte(i)
	}
	return b
}

// writeSafetensors writes n u8[2] tensors t0, t1, … to dir/name.
func writeSafetensors(t *testing.T, dir, name string, n int) string {
	t.Helper()
	var ts []safetensors.NamedBuffer
	for i := range n {
		ts = append(ts, safetensors.NamedBuffer{Name: fmt.Sprintf("t%d", i), Buf: counting("u8[2]", byte(10*i))})
	}
	return testfiles.WriteCheckpoint(t, dir, name, ts...)
}

// TestOpenArray: each format opens to its array; each way an input can be wrong is an
// error of the right kind that names the input with the given words.
func TestOpenArray(t *testing.T) {
	dir := t.TempDir()
	w := convert.ArrayWords{What: "Ref", Shape: "RefShape", Tensor: "Tensor"}
	arr := counting("s16[3,4]", 1)
	npyPath := filepath.Join(dir, "a.npy")
	if err := npy.Write(npyPath, arr); err != nil {
		t.Fatal(err)
	}
	raw := testfiles.WriteFile(t, dir, "a.bin", arr.Data)
	one := writeSafetensors(t, dir, "one.safetensors", 1)
	three := writeSafetensors(t, dir, "three.safetensors", 3)
	ten := writeSafetensors(t, dir, "ten.safetensors", 10)
	for _, c := range []struct {
		path, shape, tensor string
		want, name          string
		data                []byte
	}{
		{npyPath, "", "", "s16[3,4]{1,0}", "", arr.Data},
		{raw, "s16[3,4]", "", "s16[3,4]{1,0}", "", arr.Data},
		{raw, "s16[4,3]{0,1}", "", "s16[4,3]{0,1}", "", arr.Data},
		{one, "", "", "u8[2]{0}", "t0", []byte{0, 1}},
		{three, "", "t2", "u8[2]{0}", "t2", []byte{20, 21}},
	} {
		b, name, err := convert.OpenArray(c.path, convert.FormatOf(c.path), c.shape, c.tensor, w)
		if err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		if b.Shape.String() != c.want || name != c.name || !bytes.Equal(b.Data, c.data) {
			t.Errorf("%s: %s %q %v, want %s %q %v", c.path, b.Shape, name, b.Data, c.want, c.name, c.data)
		}
		b.Close()
	}
	badNPY := testfiles.WriteFile(t, dir, "bad.npy", []byte("not numpy"))
	badST := testfiles.WriteFile(t, dir, "bad.safetensors", []byte("12345678"))
	for _, c := range []struct {
		path, shape, tensor string
		kind                convert.Kind
		want                string
	}{
		{filepath.Join(dir, "none.npy"), "", "", convert.Input, "cannot read Ref " + filepath.Join(dir, "none.npy") + ": stat "},
		{dir, "", "", convert.Input, "cannot read Ref " + dir + ": it is a directory"},
		{npyPath, "", "t0", convert.Setting, "Tensor picks a tensor of a .safetensors Ref; " + npyPath + " is a .npy file"},
		{badNPY, "", "", convert.Input, "cannot read Ref " + badNPY + ": "},
		{badST, "", "", convert.Input, "cannot read Ref " + badST + ": "},
		{three, "", "", convert.Setting, "Ref " + three + ` holds 3 tensors ("t0", "t1", "t2"); pick one with Tensor NAME`},
		{ten, "", "", convert.Setting, `"t7", and 2 more); pick one`},
		{three, "", "w", convert.Setting, "Ref " + three + ` has no tensor "w" (it has "t0", "t1", "t2")`},
		{raw, "", "", convert.Setting, "Ref " + raw + " is raw bytes (not .npy or .safetensors): give its shape with RefShape SHAPE"},
		{raw, "s16[3,4", "", convert.Input, "RefShape: bad shape"},
		{raw, "s16[3,5]", "", convert.Input, "Ref " + raw + " has 24 bytes, but s16[3,5]{1,0} needs 30 bytes (its footprint)"},
	} {
		_, _, err := convert.OpenArray(c.path, convert.FormatOf(c.path), c.shape, c.tensor, w)
		var e *convert.Error
		if !errors.As(err, &e) || e.Kind != c.kind || !strings.Contains(e.Error(), c.want) {
			t.Errorf("%s (shape %q, tensor %q): %v; want a %v error with %q", c.path, c.shape, c.tensor, err, c.kind, c.want)
		}
	}
}

func TestViewArray(t *testing.T) {
	b := counting("u16[2,3]", 0)
	if v, err := convert.ViewArray(b, "", "View", "In", "a.npy"); err != nil || v != b {
		t.Errorf("no view: %v, %v", v, err)
	}
	v, err := convert.ViewArray(b, "bf16", "View", "In", "a.npy")
	if err != nil || v.DType() != layout.BF16 || !bytes.Equal(v.Data, b.Data) || v.Shape.String() != "bf16[2,3]{1,0}" {
		t.Fatalf("bf16 view: %v, %v", v, err)
	}
	for _, c := range []struct {
		name, want string
	}{
		{"f32", "View f32 reads 32-bit elements, but In a.npy holds u16, 16-bit ones; View takes a type of the same width: "},
		{"bf17", `unknown View "bf17"`},
		{"token", `unknown View "token"`},
	} {
		_, err := convert.ViewArray(b, c.name, "View", "In", "a.npy")
		var e *convert.Error
		if !errors.As(err, &e) || e.Kind != convert.Setting || !strings.Contains(e.Error(), c.want) {
			t.Errorf("view %s: %v; want a usage error with %q", c.name, err, c.want)
		}
	}
	// The types of the same width are listed, the array's own left out.
	_, err = convert.ViewArray(b, "f32", "View", "In", "a.npy")
	_, list, _ := strings.Cut(err.Error(), "same width: ")
	got := strings.Split(list, ", ")
	slices.Sort(got)
	if !slices.Equal(got, []string{"bf16", "f16", "s16"}) {
		t.Errorf("same-width list of u16: %q", list)
	}
}

func TestViewNote(t *testing.T) {
	for _, c := range []struct {
		src, dst layout.DType
		want     string
	}{
		{layout.U16, layout.BF16, "note: IN holds u16 integers, converted to bf16 by value; if they are bf16 bits, add --view bf16"},
		{layout.S32, layout.F32, "note: IN holds s32 integers, converted to f32 by value; if they are f32 bits, add --view f32"},
		{layout.U16, layout.F32, ""},
		{layout.F32, layout.BF16, ""},
		{layout.U16, layout.S16, ""},
	} {
		if got := convert.ViewNote(c.src, c.dst, "IN", "--view"); got != c.want {
			t.Errorf("%s → %s: %q, want %q", c.src, c.dst, got, c.want)
		}
	}
}
