package placement

import (
	"slices"
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	cases := []struct{ in, out string }{
		{`P("data", "model")`, `P("data", "model")`},
		{`P(None,'model')`, `P(None, "model")`},
		{`P(("data", "model"))`, `P(("data", "model"))`},
		{`PartitionSpec(("a",), None, )`, `P("a", None)`},
		{`P()`, `P()`},
		{` P ( ( ) , "x" ) `, `P(None, "x")`},
	}
	for _, c := range cases {
		s, err := ParseSpec(c.in)
		if err != nil {
			t.Errorf("ParseSpec(%q): %v", c.in, err)
			continue
		}
		if s.String() != c.out {
			t.Errorf("ParseSpec(%q) = %s, want %s", c.in, s, c.out)
		}
		again, err := ParseSpec(s.String())
		if err != nil || again.String() != s.String() {
			t.Errorf("%s does not read back: %v", s, err)
		}
	}
	bad := []struct{ in, want string }{
		{`("x")`, "at byte 0: want P(…)"},
		{`P("x"`, "at byte 5"},
		{`P(x)`, "at byte 2: want None, a quoted"},
		{`P("x") y`, "unexpected text"},
		{`P("x`, "unterminated"},
		{`P("a b")`, `bad axis name "a b"`},
		{`Pizza()`, "want P(…)"},
	}
	for _, c := range bad {
		_, err := ParseSpec(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseSpec(%q) = %v, want an error with %q", c.in, err, c.want)
		}
	}
}

func TestMeshErrors(t *testing.T) {
	cases := []struct {
		mesh    string
		devices []int
		want    string
	}{
		{"data=2,model=4", []int{0, 1, 2}, "8 devices, but only 3 device ids"},
		{"data=2", []int{0, 1, 2}, "3 device ids are given"},
		{"data=2", []int{1, 1}, "device id 1 is given twice"},
		{"data=2", []int{0, -1}, "negative"},
		{"data=2,data=2", nil, `"data" appears twice`},
		{"data=0", nil, "at least 1"},
		{"data", nil, "not AXIS=SIZE"},
		{"data=x", nil, "not a number"},
	}
	for _, c := range cases {
		_, err := ParseMesh(c.mesh, c.devices)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseMesh(%q, %v) = %v, want an error with %q", c.mesh, c.devices, err, c.want)
		}
	}
}

func TestProcessDevices(t *testing.T) {
	m, err := ParseMesh("data=2,model=4", []int{7, 6, 5, 4, 3, 2, 1, 0})
	if err != nil {
		t.Fatal(err)
	}
	var all []int
	for i := range 4 {
		d, err := m.ProcessDevices(i, 4)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d, []int{2 * i, 2*i + 1}) {
			t.Errorf("process %d/4 holds %v", i, d)
		}
		all = append(all, d...)
	}
	if len(all) != 8 {
		t.Errorf("processes hold %v", all)
	}
	if _, err := m.ProcessDevices(0, 3); err == nil {
		t.Error("3 processes split 8 devices")
	}
}

// TestPlaceDevices: with --devices, shards follow the mesh positions, not the ids.
func TestPlaceDevices(t *testing.T) {
	m, _ := ParseMesh("x=2,y=2", []int{3, 1, 0, 2})
	spec, _ := ParseSpec(`P("y")`)
	pl, err := Place(m, spec, []int64{4, 6})
	if err != nil {
		t.Fatal(err)
	}
	// y=0 is positions 0 and 2: ids 3 and 0.
	if got := pl.Shards[0].Devices; !slices.Equal(got, []int{0, 3}) {
		t.Errorf("shard 0 on %v, want [0 3]", got)
	}
	if c := pl.Coords(0); !slices.Equal(c, []int{1, 0}) {
		t.Errorf("device 0 at %v, want [1 0]", c)
	}
}

// FuzzParseSpec: any text parses or fails with an error, never a panic, and what
// parses prints back to itself.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{`P("data", "model")`, `P(None, ('a', "b"),)`, `PartitionSpec()`, `P((`, `P("x`, `P(None`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSpec(text)
		if err != nil {
			return
		}
		again, err := ParseSpec(s.String())
		if err != nil || again.String() != s.String() {
			t.Fatalf("%q parses to %s, which reads back as %v (%v)", text, s, again, err)
		}
		m, _ := ParseMesh("a=2,b=3,data=1,model=4", nil)
		if err := s.Check(m, 3); err == nil {
			if _, err := Place(m, s, []int64{24, 24, 24}); err != nil {
				t.Fatalf("%s passes Check but Place fails: %v", s, err)
			}
		}
	})
}
