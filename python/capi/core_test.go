package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/report"
)

func TestErrorJSONKinds(t *testing.T) {
	_, perr := newPlan("f32[2,3]{0,0}", "f32[2,3]", 0, "", 0)
	_, serr := newPlan("f32[2,3]", "f32[3,2]", 0, "", 0)
	p, _ := newPlan("f32[2,3]", "f32[2,3]", 0, "", 0)
	zerr := p.CopyBytes(make([]byte, 5), make([]byte, 24))
	_, verr := newPlan("f32[2,3]", "f32[2,3]", 0, "sometimes", 0)
	for _, c := range []struct {
		err  error
		kind string
		pos  int
	}{
		{perr, "layout", 11},
		{serr, "shape", -1},
		{zerr, "size", -1},
		{verr, "value", -1},
		{internalError{"boom"}, "internal", -1},
		{fmt.Errorf("wrapped: %w", buffer.ErrSize), "size", -1},
		{fmt.Errorf("wrapped: %w", relayout.ErrShape), "shape", -1},
	} {
		var e apiError
		if err := json.Unmarshal(errorJSON(c.err), &e); err != nil {
			t.Fatal(err)
		}
		if e.Kind != c.kind || e.Pos != c.pos || e.Msg != c.err.Error() {
			t.Errorf("%v: got %+v, want kind %s pos %d", c.err, e, c.kind, c.pos)
		}
	}
	var pe *layout.ParseError
	if !errors.As(perr, &pe) {
		t.Fatalf("%v is not a ParseError", perr)
	}
}

func TestInfo(t *testing.T) {
	b, err := info("bf16[300,1000]{1,0:T(8,128)(2,1)}", "", false)
	if err != nil {
		t.Fatal(err)
	}
	var in report.Info
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	if in.TileCount != 38*8 || in.FootprintBytes != 304*1024*2 || in.TPU == nil || in.TPU.Tiles != in.TileCount {
		t.Errorf("info: %s", b)
	}
	if _, err := info("(f32[2], f32[3])", "", false); err == nil || !strings.Contains(err.Error(), "not an array") {
		t.Errorf("tuple: %v", err)
	}
	if _, err := info("f32[2]", "v99", false); err == nil {
		t.Error("unknown generation: no error")
	}
}

// A first tile with combined dims: its level comes after the "combined" one, and has
// fewer dims than the tile has entries (issue #26: this once panicked).
func TestInfoCombinedTile(t *testing.T) {
	for _, c := range []struct {
		shape string
		tiles int64
	}{
		{"f32[7,8,10]{2,1,0:T(*,2,3)}", 28 * 4},            // combined 56×10, (2,3) tiles
		{"bf16[8,2,3,1004]{3,2,1,0:T(2,*,*,128)}", 4 * 48}, // combined 8×6024, (2,128) tiles
		{"f32[4,4,4]{2,1,0:T(*,8,128)(2,1)}", 2 * 1},       // combined 16×4, (8,128) tiles
		{"bf16[300,1000]{1,0:T(8,128)(2,1)}", 38 * 8},      // no combined dims
	} {
		b, err := info(c.shape, "", false)
		if err != nil {
			t.Errorf("%s: %v", c.shape, err)
			continue
		}
		var in report.Info
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatal(err)
		}
		if in.TileCount != c.tiles {
			t.Errorf("%s: %d tiles, want %d", c.shape, in.TileCount, c.tiles)
		}
	}
	b, err := info("f32[10,10]{1,0:D(D,C)*(u32)}", "", false)
	if err != nil || !strings.Contains(string(b), `"sparse":true`) || !strings.Contains(string(b), "stored elements") {
		t.Errorf("sparse: %s %v", b, err)
	}
}

func TestDefaultLayout(t *testing.T) {
	s, err := defaultLayout("bf16", []int64{256, 1024}, "")
	if err != nil || s != "bf16[256,1024]{1,0:T(8,128)(2,1)}" {
		t.Errorf("got %q, %v", s, err)
	}
	if _, err := defaultLayout("bf17", []int64{2}, ""); err == nil {
		t.Error("unknown dtype: no error")
	}
}

func TestCompareBytes(t *testing.T) {
	ref := buffer.MustNew(layout.MustParse("f32[16,128]"))
	for i := range ref.Data {
		ref.Data[i] = byte(i % 7)
	}
	dump := buffer.MustNew(layout.MustParse("bf16[16,128]{1,0:T(8,128)(2,1)}"))
	p, err := relayout.NewPlan(dump.Shape, ref.Shape)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Copy(dump, ref); err != nil {
		t.Fatal(err)
	}
	b, err := compareBytes(dump.Data, dump.Shape.String(), ref.Data, "f32[16,128]", `{"max_listed": 3}`)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Report struct {
			OK bool `json:"ok"`
		} `json:"report"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(b, &res); err != nil || !res.Report.OK || !strings.Contains(res.Text, "OK") {
		t.Errorf("compare: %s, %v", b, err)
	}
	if _, err := compareBytes(dump.Data[1:], dump.Shape.String(), ref.Data, "f32[16,128]", ""); !errors.Is(err, buffer.ErrSize) {
		t.Errorf("short dump: %v", err)
	}
	if _, err := compareBytes(dump.Data, dump.Shape.String(), ref.Data, "f32[16,128]", "{"); err == nil {
		t.Error("bad options: no error")
	}
}

// A plan between two layouts given as text, as the Python package compiles one.
func Example() {
	p, err := newPlan("bf16[16,256]{1,0:T(8,128)(2,1)}", "f32[16,256]", 1, "zero", 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(planJSON(p, "bf16[16,256]{1,0:T(8,128)(2,1)}", "f32[16,256]")[:120]))
	_, err = newPlan("bf16[16,256]{1,0:T(8,128)(2,1}", "f32[16,256]", 1, "zero", 0)
	fmt.Println(string(errorJSON(err)))
	// Output:
	// {"dst":"bf16[16,256]{1,0:T(8,128)(2,1)}","src":"f32[16,256]","src_bytes":16384,"dst_bytes":8192,"kernel":"interleave","d
	// {"kind":"layout","msg":"layout: parse \"bf16[16,256]{1,0:T(8,128)(2,1}\": at byte 29: expected ',' or ')' in a tile, found '}'","pos":29,"input":"bf16[16,256]{1,0:T(8,128)(2,1}"}
}

// Packed sub-byte elements that end inside the last byte leave its other bits zero,
// whatever the destination held before, unless padding is left alone.
func TestTailBitsCleared(t *testing.T) {
	for _, c := range []struct {
		dst, src, pad string
		want          string
	}{
		{"s4[1]{0:E(4)}", "s8[1]", "zero", "0f"},
		{"s4[3]{0:E(4)}", "s8[3]", "value", "ff0f"},
		{"s4[3,3]{1,0:E(4)}", "s8[3,3]", "zero", "ffffffff0f"},
		{"s2[3]{0:E(2)}", "s8[3]", "zero", "3f"},
		{"s4[2]{0:E(4)}", "s8[2]", "zero", "ff"},
		{"s4[3]{0:E(4)}", "s8[3]", "leave", "ffef"},
	} {
		p, err := newPlan(c.dst, c.src, 1, c.pad, 0)
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]byte, p.DstBytes())
		for i := range dst {
			dst[i] = 0xee
		}
		src := make([]byte, p.SrcBytes())
		for i := range src {
			src[i] = 0xff // -1: every bit of an element set
		}
		if err := p.CopyBytes(dst, src); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", dst); got != c.want {
			t.Errorf("%s ← %s, pad %s: %s, want %s", c.dst, c.src, c.pad, got, c.want)
		}
	}
}

// to_device(a, "{1,0:T(8,128)}", dtype="u8", pad=-1) wrote 0 into the padding, s8 with
// pad=0.1 wrote 0 and bf16 with pad=1e40 wrote +Inf, all unsaid; the CLI's --pad refuses
// such values.
func TestPadValueMustBeExact(t *testing.T) {
	for _, c := range []struct {
		dt string
		v  float64
		ok bool
	}{
		{"u8", -1, false}, {"s8", 0.1, false}, {"bf16", 1e40, false}, {"s8", 300, false},
		{"bf16", 0.1, false}, {"s8", math.NaN(), false}, {"c64", 1, false},
		{"u8", 255, true}, {"s8", -128, true}, {"bf16", 1.5, true}, {"bf16", math.Inf(-1), true},
		{"f32", math.NaN(), true}, {"pred", 1, true}, {"s4", -8, true}, {"bf16", math.Copysign(0, -1), true}, {"s8", math.Copysign(0, -1), true},
	} {
		dst := fmt.Sprintf("%s[3,5]{1,0:T(8,128)}", c.dt)
		_, err := newPlan(dst, "f32[3,5]", 1, "value", c.v)
		if (err == nil) != c.ok {
			t.Errorf("pad %v into %s: error %v, want ok=%v", c.v, dst, err, c.ok)
		}
	}
}

func TestBuildReportRequests(t *testing.T) {
	for _, c := range []struct{ req, want string }{
		{`{"report":"explain","layout":"f32[3,5]","index":[1,2]}`, `"offset":7`},
		{`{"report":"explain","layout":"f32[3,5]","offset":3}`, `"index":[0,3]`},
		{`{"report":"blockspec","array":"bf16[4096,4096]","block":[256,512],"operands":2}`, `"legal":true`},
		{`{"report":"hlo","text":"HloModule m\nENTRY e {\n ROOT p = f32[2]{0} parameter(0)\n}\n"}`, `"kind":"parameter"`},
		{`{"report":"place","layout":"f32[8,4]","mesh":"x=2","spec":"P(\"x\")","devices":[1,0]}`, `"shards":[{"index":[0,0],"ranges":[[0,4],[0,4]],"devices":[1]},`},
	} {
		b, err := buildReport(c.req)
		if err != nil || !strings.Contains(string(b), c.want) {
			t.Errorf("%s: %s, %v; want %s", c.req, b, err, c.want)
		}
	}
	for _, c := range []struct{ req, want string }{
		{`{"report":"explain","layout":"f32[3,5]","index":[1,2],"offset":3}`, "not both"},
		{`{"report":"explain","layout":"f32[3,5]"}`, "needs an index or an offset"},
		{`{"report":"hlo","text":"HloModule m\n","sort":"size"}`, ""},
		{`{"report":"blockspec","array":"bf16[64,128]","block":[8,128],"gen":"v99"}`, "v99"},
		{`{"report":"shard"}`, "missing --mesh"},
		{`{"report":"shard","mesh":"x=2","checkpoint":"c.safetensors","out":"o","spec":"P()","to":"tpu:v5e","devices":"0,x"}`, `--devices: bad device list "0,x"`},
		{`{"report":"shard","mesh":"x=2","checkpoint":"c.safetensors","out":"o","spec":"P()","to":"tpu:v5e","devices":{}}`, "want a list of device ids"},
		{`{"report":"place","layout":"f32[8,4]","mesh":"x=3","spec":"P(\"x\")"}`, "dims [8,4]: dim 0 of size 8 is not divisible by 3"},
		{`{"report":"place","layout":"f32[8,","mesh":"x=2","spec":"P()"}`, "f32[8,"},
		{`{"report":"merge","dir":"/nonexistent/pyshard"}`, "/nonexistent/pyshard"},
		{`{"report":"shards"}`, `unknown report "shards"`},
		{`{"report":`, "report request"},
	} {
		if _, err := buildReport(c.req); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.req, err, c.want)
		}
	}
}

func TestInfoAndDefaultLayoutErrors(t *testing.T) {
	for _, c := range []struct {
		shape, gen string
		insight    bool
		want       string // in the JSON, or the error
		ok         bool
	}{
		{"bf16[16,256]{1,0:T(8,128)(2,1)}", "", true, `"expansion":1`, true},
		{"bf16[16,256]{1,0:T(8,128)(2,1)}", "v4", true, `"generation":"v4"`, true},
		{"f32[10,10]{1,0:D(D,C)*(u32)}", "", false, `"sparse":true`, true},
		{"f32[10", "", false, "f32[10", false},
	} {
		b, err := info(c.shape, c.gen, c.insight)
		got := string(b)
		if err != nil {
			got = err.Error()
		}
		if (err == nil) != c.ok || !strings.Contains(got, c.want) {
			t.Errorf("info(%q, %q, %v): %.200s; want %q", c.shape, c.gen, c.insight, got, c.want)
		}
	}
	for _, c := range []struct {
		dtype, gen string
		dims       []int64
		want       string
	}{
		{"bf16", "v99", []int64{8}, "v99"},
		{"f32", "", []int64{-1}, "dim 0 is -1"},
		{"f32", "", []int64{1 << 40, 1 << 40}, "the element count overflows int64"},
	} {
		if s, err := defaultLayout(c.dtype, c.dims, c.gen); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("defaultLayout(%s, %v, %q): %q, %v; want an error with %q", c.dtype, c.dims, c.gen, s, err, c.want)
		}
	}
	if s, err := defaultLayout("bf16", []int64{256, 1024}, "v5e"); err != nil || s != "bf16[256,1024]{1,0:T(8,128)(2,1)}" {
		t.Errorf("v5e: %q, %v", s, err)
	}
}
