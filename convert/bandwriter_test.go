package convert

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
)

// memAt is an in-memory io.WriterAt (and io.Writer) that fails or panics from write
// number failAt (1-based; 0: never).
type memAt struct {
	b      []byte
	calls  int
	failAt int
	panics bool
}

func (m *memAt) Write(p []byte) (int, error) { return m.WriteAt(p, int64(len(m.b))) }

func (m *memAt) WriteAt(p []byte, off int64) (int, error) {
	m.calls++
	if m.failAt > 0 && m.calls >= m.failAt {
		if m.panics {
			panic("memAt")
		}
		return 0, errors.New("disk full")
	}
	if end := int(off) + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	copy(m.b[off:], p)
	return len(p), nil
}

// TestWriteBandsSameBytes checks that the pipelined band writer writes what one
// relayout.Bands.Run of the same bands writes, for direct and gathered bands, a last band
// shorter than the others, and every --pad; the cases run one after another so that the
// band buffers are reused from the pool by plans of other shapes (whose bytes must not
// show through --pad leave's unwritten padding).
func TestWriteBandsSameBytes(t *testing.T) {
	cases := []struct{ host, device string }{
		{"f32[203,300]", "bf16[203,300]{1,0:T(8,128)(2,1)}"},
		{"f32[100,129]", "f32[100,129]{1,0:T(8,128)}"},
		{"f32[130,300]", "bf16[130,300]{0,1:T(8,128)(2,1)}"}, // gathered
		{"s8[3,70,200]", "s8[3,70,200]{0,2,1:T(32,128)(4,1)}"},
		{"f32[203,300]", "f32[203,300]{1,0:T(8,128)}"},
	}
	pads := []relayout.Option{relayout.WithPadLeave(), relayout.WithPadZero(), relayout.WithPadValue(-2)}
	for round := range 2 {
		for i, c := range cases {
			for j, pad := range pads {
				src := testfiles.RandomBuffer(t, c.host, uint64(10*i+j))
				dst := layout.MustParse(c.device)
				b, ok := relayout.PlanBands(dst, src.Shape, 1<<12)
				if !ok || b.Len() < 3 {
					t.Fatalf("%s: not banded in 3 or more bands", c.device)
				}
				if err := b.Compile(pad); err != nil {
					t.Fatal(err)
				}
				want := &memAt{}
				if err := b.Run(src, func(bd relayout.Band, p []byte) error {
					_, err := want.WriteAt(p, 7+bd.DstOff)
					return err
				}); err != nil {
					t.Fatal(err)
				}
				got := &memAt{}
				if err := writeBands(context.Background(), got, 7, src, b, noProgress{}, func(err error) error { return err }); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.b, want.b) {
					t.Errorf("round %d: %s ← %s, pad option %d: the pipelined writer's bytes differ from Bands.Run's", round, c.device, c.host, j)
				}
			}
		}
	}
}

// TestWriteBandsFailure checks that a write error stops the conversion with that error
// (wrapped as the caller says) and that a panicking writer's panic reaches the caller,
// without a hang either way, whichever band it comes at.
func TestWriteBandsFailure(t *testing.T) {
	src := testfiles.RandomBuffer(t, "f32[203,300]", 5)
	dst := layout.MustParse("bf16[203,300]{1,0:T(8,128)(2,1)}")
	b, ok := relayout.PlanBands(dst, src.Shape, 1<<12)
	if !ok {
		t.Fatal("not banded")
	}
	if err := b.Compile(); err != nil {
		t.Fatal(err)
	}
	calls := int(b.Band(0).DstLen+buffer.WriteChunk-1) / buffer.WriteChunk * b.Len()
	for failAt := 1; failAt <= calls; failAt++ {
		w := &memAt{failAt: failAt}
		err := writeBands(context.Background(), w, 0, src, b, noProgress{}, func(err error) error { return fmt.Errorf("OUT: %w", err) })
		if err == nil || !strings.Contains(err.Error(), "OUT: disk full") {
			t.Errorf("failing at write %d: error %v", failAt, err)
		}
		func() {
			defer func() {
				if r := recover(); r != "memAt" {
					t.Errorf("panicking at write %d: recovered %v", failAt, r)
				}
			}()
			writeBands(context.Background(), &memAt{failAt: failAt, panics: true}, 0, src, b, noProgress{}, func(err error) error { return err })
		}()
	}
}
