package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/internal/testenv"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
)

// The Python package's sharded conversion end to end through tl_report's requests:
// two processes shard a checkpoint, merge joins their manifests, verify checks the
// images against the checkpoint, open finds them, and gather writes back the tensor
// the checkpoint holds.
func TestShardRequestsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	w := buffer.MustNew(layout.MustParse("f32[8,256]"))
	for i := range w.Len() {
		w.SetF32([]int64{i / 256, i % 256}, float32(i)*0.5)
	}
	ckpt := testfiles.WriteCheckpoint(t, dir, "model.safetensors", safetensors.NamedBuffer{Name: "w", Buf: w})
	out := filepath.Join(dir, "out")
	for p := range 2 {
		req := testenv.JSON(t, map[string]any{"report": "shard", "checkpoint": ckpt, "out": out, "mesh": "x=2",
			"spec": `P("x")`, "to": "tpu:v5e", "devices": "1,0", "process": p, "processes": 2, "pad": "value", "pad_value": 0})
		b, err := buildReport(req)
		if err != nil {
			t.Fatalf("process %d: %v", p, err)
		}
		if !strings.Contains(string(b), `"w"`) {
			t.Errorf("process %d summary %s does not name the tensor", p, b)
		}
	}
	steps := []struct {
		req  map[string]any
		want string
	}{
		{map[string]any{"report": "merge", "dir": out, "quick": true}, `"mesh"`},
		{map[string]any{"report": "open", "dir": out}, fmt.Sprintf(`"dir":%q`, out)},
		{map[string]any{"report": "gather", "dir": out, "out": filepath.Join(dir, "back.safetensors")}, `"w"`},
	}
	for _, s := range steps {
		b, err := buildReport(testenv.JSON(t, s.req))
		if err != nil || !strings.Contains(string(b), s.want) {
			t.Errorf("%v: %.300s, %v; want %s", s.req, b, err, s.want)
		}
	}
	b, err := buildReport(testenv.JSON(t, map[string]any{"report": "verify", "dir": out, "source": ckpt}))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Tensors, Shards int
		Problems        []json.RawMessage
	}
	if err := json.Unmarshal(b, &v); err != nil || v.Tensors != 1 || v.Shards != 2 || len(v.Problems) != 0 {
		t.Errorf("verify: %+v (%v)", v, err)
	}
	back, err := safetensors.ReadTensor(filepath.Join(dir, "back.safetensors"), "w")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Data, w.Data) || back.Shape.String() != w.Shape.String() {
		t.Errorf("gathered %s differs from the checkpoint's %s", back.Shape, w.Shape)
	}
}

// A rules request given as the rules' object and as a path to a missing file.
func TestPlaceRequestRules(t *testing.T) {
	rules := `{"rules": [{"match": "w.*", "spec": "P(None, 'x')"}]}`
	req := `{"report":"place","layout":"f32[8,4]","mesh":"x=2","tensor":"wq","rules":` + rules + `}`
	b, err := buildReport(req)
	if err != nil || !strings.Contains(string(b), `"ranges":[[0,8],[0,2]]`) {
		t.Errorf("rules object: %s, %v", b, err)
	}
	missing := filepath.Join(t.TempDir(), "rules.json")
	req = testenv.JSON(t, map[string]any{"report": "place", "layout": "f32[8,4]", "mesh": "x=2", "tensor": "wq", "rules": missing})
	if _, err := buildReport(req); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing rules file: %v", err)
	}
}
