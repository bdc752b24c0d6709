package sharding

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/sharding/placement"
)

// TestGatherBanded gathers every NumPy fixture's conversion twice, band by band (tiny
// bands) and whole (bands larger than any tensor), and checks that both write the same
// file, and that a changed byte in a shard fails the banded gather too.
func TestGatherBanded(t *testing.T) {
	saved := gatherBandBytes
	defer func() { gatherBandBytes = saved }()
	banded := 0
	for _, c := range readFixtures(t) {
		mesh, spec, dst := c.parse(t)
		ckpt, err := OpenCheckpoint(filepath.Join(fixtureDir, c.Name+".safetensors"))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		m, err := convertDir(ckpt, out, jobOptions{Mesh: mesh, SpecFor: specAll(spec), Target: targetAll(dst)})
		if err != nil {
			t.Fatal(err)
		}
		whole, piece := filepath.Join(dir, "whole.safetensors"), filepath.Join(dir, "banded.safetensors")
		gatherBandBytes = 1 << 40
		if _, err := Gather(out, whole); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		gatherBandBytes = 1024
		if _, err := Gather(out, piece); err != nil {
			t.Fatalf("%s: banded: %v", c.Name, err)
		}
		w, _ := os.ReadFile(whole)
		p, _ := os.ReadFile(piece)
		if !bytes.Equal(w, p) {
			t.Errorf("%s (%s, %s on %s): the banded gather differs from the whole one", c.Name, c.Layout, c.Spec, c.Mesh)
		}
		tm := m.Tensors[0]
		pl, _ := placement.Place(mesh, spec, tm.Shape)
		if ok, _ := gatherBanded(io.Discard, dirOut(out), tm, dst, pl, &scratch{}); !ok {
			continue // gathered whole both times
		}
		banded++
		// A changed byte in the last shard's last band.
		last := filepath.Join(out, tm.Shards[len(tm.Shards)-1].File)
		img, _ := os.ReadFile(last)
		img[len(img)-1] ^= 1
		os.WriteFile(last, img, 0o644)
		if _, err := Gather(out, piece); err == nil || !strings.Contains(err.Error(), "does not match its crc32c") {
			t.Errorf("%s: banded gather of a changed shard: %v", c.Name, err)
		}
	}
	if banded == 0 {
		t.Error("no fixture was gathered in bands")
	}
	t.Logf("%d fixtures gathered in bands", banded)
}
