package report

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tpulayout/tpulayout/hlo"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// TestWriteTextGoldens: the text the library writes for each report, built from Go
// without the command, is the golden in testdata/ byte for byte (the command's
// scenarios in cmd/tpulayout/testdata/script pin the same words from the binary).
func TestWriteTextGoldens(t *testing.T) {
	compile := func(s string) *layout.Indexer {
		ix := testfiles.Compile(t, s)
		return ix
	}
	must := func(w interface{ WriteText(io.Writer) error }, err error) func(io.Writer) error {
		if err != nil {
			t.Fatal(err)
		}
		return w.WriteText
	}
	mod, err := os.ReadFile("../hlo/testdata/train_step.after_optimizations.txt")
	if err != nil {
		t.Fatal(err)
	}
	m, err := hlo.Parse(mod)
	if err != nil {
		t.Fatal(err)
	}
	sh := layout.MustParse("bf16[4096,4096]")
	blk, err := tpu.CheckBlock(tpu.V5e, sh.DType, sh.Dims, []int64{256, 512})
	if err != nil {
		t.Fatal(err)
	}
	for golden, write := range map[string]func(io.Writer) error{
		"info_bf16_3x5":       NewInfo(compile("bf16[3,5]{1,0:T(8,128)(2,1)}")).AddInsight(tpu.DefaultGeneration).WriteText,
		"info_s4_tail":        NewInfo(compile("s4[64,128]{1,0:T(8,128)L(10000)E(4)}")).AddInsight(tpu.DefaultGeneration).WriteText,
		"explain_f32_3x5":     must(ExplainIndex(compile("f32[3,5]{1,0:T(2,2)}"), []int64{2, 3})),
		"explain_padding":     must(ExplainOffset(compile("f32[3,5]{1,0:T(2,2)}"), 11)),
		"show_rank3":          must(NewGrid(compile("f32[2,3,5]{1,2,0:T(2,2)}"), GridOptions{})),
		"hlo_after":           NewHLO(m, HLOOptions{}).WriteText,
		"blockspec_bf16_4096": NewBlock(blk, 3).WriteText,
	} {
		want, err := os.ReadFile(filepath.Join("testdata", golden+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := write(&got); err != nil {
			t.Fatalf("%s: %v", golden, err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: the library writes\n%s\nthe golden is\n%s", golden, got.Bytes(), want)
		}
	}
}
