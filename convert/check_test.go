package convert

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// TestCheck: an image the Job wrote matches its source; a changed byte is a mismatch
// in the report, not an error; files that do not fit are errors of kind Input.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	ref := testfiles.WriteNPY(t, dir, "ref.npy", testfiles.RandomBuffer(t, "f32[20,300]", 4))
	img := filepath.Join(dir, "img.bin")
	r, err := (&Job{In: ref, Out: img, To: outTo}).Run()
	if err != nil {
		t.Fatal(err)
	}
	var stages []string
	c := &Check{Dump: img, Layout: r.Shape.String(), Ref: ref}
	c.Options.Stage = func(s string) { stages = append(stages, s) }
	res, err := c.Run()
	if err != nil || !res.Report.OK || res.Report.Elements != 20*300 || stages[0] != "reading" {
		t.Fatalf("the job's own image: %+v, %v (stages %q)", res, err, stages)
	}
	b, _ := os.ReadFile(img)
	b[0] ^= 0x40
	res, err = (&Check{Dump: "-", Layout: r.Shape.String(), Ref: ref, Stdin: bytes.NewReader(b)}).Run()
	if err != nil || res.Report.OK || res.Report.Mismatches != 1 {
		t.Errorf("a changed element: %+v, %v", res, err)
	}
	_, err = (&Check{Dump: img, Layout: "bf16[20,301]{1,0:T(8,128)(2,1)}", Ref: ref}).Run()
	if KindOf(err) != Input || !strings.Contains(err.Error(), "Ref "+ref+" is f32[20,300]{1,0}, but Layout bf16[20,301]") {
		t.Errorf("other dims: %v", err)
	}
	_, err = (&Check{Dump: img, Layout: "bf16[20,300]", Ref: ref}).Run()
	if KindOf(err) != Input || !strings.Contains(err.Error(), "Dump "+img+" has 18432 bytes, but the footprint of bf16[20,300]{1,0} is 12000 bytes") {
		t.Errorf("another size: %v", err)
	}
}

// TestCheckSummaryView: a u16 Ref holding bf16 bits differs everywhere from the image
// made of those bits; the summary says it may be bits, unless View was set.
func TestCheckSummaryView(t *testing.T) {
	dir := t.TempDir()
	ref := testfiles.WriteNPY(t, dir, "bits.npy", testfiles.RandomBuffer(t, "u16[8,128]", 5))
	img := filepath.Join(dir, "img.bin")
	layoutText := "bf16[8,128]{1,0:T(8,128)(2,1)}"
	if _, err := (&Job{In: ref, Out: img, To: layoutText, View: "bf16"}).Run(); err != nil {
		t.Fatal(err)
	}
	res, err := (&Check{Dump: img, Layout: layoutText, Ref: ref}).Run()
	if err != nil {
		t.Fatal(err)
	}
	want := " (Ref holds u16 integers, converted to bf16 by value; if they are bf16 bits, add View bf16)"
	if res.Report.OK || res.Summary().String() != res.Report.Summary()+want {
		t.Errorf("summary %q", res.Summary())
	}
	res, err = (&Check{Dump: img, Layout: layoutText, Ref: ref, View: "bf16"}).Run()
	if err != nil || !res.Report.OK || res.Summary().String() != res.Report.Summary() {
		t.Errorf("with View: %v %q", err, res.Summary())
	}
}
