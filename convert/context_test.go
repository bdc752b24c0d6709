package convert

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// TestRunContext: a job whose context is done stops before it writes, in bands and
// with All alike, with an Output error that unwraps to ctx.Err(), and leaves nothing.
func TestRunContext(t *testing.T) {
	dir := t.TempDir()
	in := testfiles.WriteNPY(t, dir, "in.npy", testfiles.RandomBuffer(t, "f32[64,256]", 1))
	ckpt := testfiles.WriteCheckpoint(t, dir, "m.safetensors",
		safetensors.NamedBuffer{Name: "w", Buf: testfiles.RandomBuffer(t, "f32[16,256]", 2)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, j := range []*Job{
		{In: in, Out: filepath.Join(dir, "o.bin"), To: "tpu:v5e", Limits: Limits{BandBytes: 8 << 10}},
		{In: ckpt, Out: filepath.Join(dir, "od"), To: "tpu:v5e", All: true},
	} {
		_, err := j.RunContext(ctx)
		var e *Error
		if !errors.Is(err, context.Canceled) || !errors.As(err, &e) || e.Kind != Output || e.Field != "Out" {
			t.Errorf("%s: %v; want an Output error about Out that is context.Canceled", j.Out, err)
		}
	}
	if names := testfiles.DirNames(t, dir); len(names) != 2 {
		t.Errorf("stopped jobs left %q", names)
	}
	if _, err := (&Job{In: in, Out: filepath.Join(dir, "o.bin"), To: "tpu:v5e", Limits: Limits{BandBytes: 8 << 10}}).RunContext(context.Background()); err != nil {
		t.Errorf("a live context: %v", err)
	}
}
