package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// TestConvertView checks --view: a '<u2' .npy holding bf16 bits converts to the bf16
// device image byte for byte, the reverse job writes such a file, and without --view a
// u16 source converted to bf16 converts values with a one-line note.
func TestConvertView(t *testing.T) {
	var note bytes.Buffer
	saved := progressOut
	progressOut = &note
	defer func() { progressOut = saved }()

	dir := t.TempDir()
	const device = "bf16[20,300]{1,0:T(8,128)(2,1)}"
	image := fixtures + "f32_20x300.bf16.T8x128_2x1.bin" // NumPy-made, from f32_20x300.npy

	// The device image back to a host file of u16 bits.
	bits := filepath.Join(dir, "bits.npy")
	if got := mustRun(t, "convert", "--from", device, image, bits, "--view", "u16"); got != "u16[20,300]{1,0}\n" {
		t.Errorf("convert --view u16 printed %q", got)
	}
	if hdr := readFile(t, bits)[:64]; !bytes.Contains(hdr, []byte("'descr': '<u2'")) {
		t.Errorf("bits.npy header %q, want '<u2'", hdr)
	}

	// And to the device image again, through --view bf16: byte for byte.
	for _, to := range []string{device, "tpu:v5e", "{1,0:T(8,128)(2,1)}"} {
		out := filepath.Join(dir, "img.bin")
		if got := mustRun(t, "convert", bits, out, "--view", "bf16", "--to", to); got != device+"\n" {
			t.Errorf("--to %s printed %q", to, got)
		}
		if !bytes.Equal(readFile(t, out), readFile(t, image)) {
			t.Errorf("--view bf16 --to %s: the image differs from %s", to, image)
		}
	}
	if note.Len() != 0 {
		t.Errorf("note with --view: %q", note.String())
	}

	// Without --view the u16 values are converted as numbers, with a note.
	out := filepath.Join(dir, "values.bin")
	mustRun(t, "convert", bits, out, "--to", device)
	if bytes.Equal(readFile(t, out), readFile(t, image)) {
		t.Errorf("u16 values converted to bf16 give the image of the bits")
	}
	if n := note.String(); strings.Count(n, "\n") != 1 || !strings.Contains(n, "u16") || !strings.Contains(n, "--view bf16") {
		t.Errorf("note without --view: %q", n)
	}
	note.Reset()
	mustRun(t, "convert", fixtures+"s8_40x130.npy", out, "--to", "f32[40,130]")
	if note.Len() != 0 {
		t.Errorf("note for s8 to f32, of another width: %q", note.String())
	}

	// validate takes --view for REF the same way.
	if o, errOut, code := runCmd(t, "validate", image, "--layout", device, "--ref", bits, "--view", "bf16"); code != 0 {
		t.Errorf("validate --view bf16: exit %d %s\n%s", code, errOut, o)
	}
	if _, _, code := runCmd(t, "validate", image, "--layout", device, "--ref", bits); code != exitMismatch {
		t.Errorf("validate of bf16 bits as u16 values: exit %d, want %d", code, exitMismatch)
	}

	// Bad views.
	wantUsageError(t, []string{"convert", bits, out, "--view", "f32", "--to", "tpu:v5e"},
		"--view f32 reads 32-bit elements", "IN "+bits+" holds u16, 16-bit", "s16, f16, bf16")
	wantUsageError(t, []string{"convert", fixtures + "f32_20x300.npy", out, "--view", "bf16", "--to", "tpu:v5e"},
		"--view bf16 reads 16-bit elements", "f32, 32-bit", "s32, u32")
	wantUsageError(t, []string{"convert", bits, out, "--view", "bogus", "--to", "tpu:v5e"}, `unknown --view "bogus"`)
	wantUsageError(t, []string{"convert", bits, out, "--view", "token", "--to", "tpu:v5e"}, `unknown --view "token"`)
	wantUsageError(t, []string{"validate", image, "--layout", device, "--ref", bits, "--view", "s8"},
		"--view s8 reads 8-bit elements", "REF "+bits)
	ckpt := filepath.Join(dir, "m.safetensors")
	if err := safetensors.Write(ckpt, []safetensors.NamedBuffer{{Name: "w", Buf: testfiles.RandomBuffer(t, "u16[4,4]", 1)}}, nil); err != nil {
		t.Fatal(err)
	}
	wantUsageError(t, []string{"convert", ckpt, filepath.Join(dir, "all"), "--all", "--view", "bf16", "--to", "tpu:v5e"}, "--view reads one array")
	if names := testfiles.DirNames(t, dir); strings.Join(names, " ") != "bits.npy img.bin m.safetensors values.bin" {
		t.Errorf("directory holds %q", names)
	}
}
