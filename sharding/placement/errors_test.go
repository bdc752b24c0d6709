package placement

import (
	"errors"
	"strconv"
	"testing"
)

// Each refusal is its typed error, with the fields that say what is at fault, and
// unwraps to its cause where there is one.
func TestErrorFields(t *testing.T) {
	mesh, _ := ParseMesh("data=2,model=4", nil)
	spec := func(s string) error {
		sp, err := ParseSpec(s)
		if err != nil {
			return err
		}
		return sp.Check(mesh, 2)
	}
	rules := func(s string) error { _, err := ParseRules([]byte(s)); return err }
	cases := []struct {
		name  string
		err   error
		check func(error) bool
	}{
		{"mesh syntax", func() error { _, err := ParseMesh("data=x", nil); return err }(), func(err error) bool {
			var se *SyntaxError
			return errors.As(err, &se) && se.What == "mesh" && se.Input == "data=x" && se.Pos == -1 && errors.Is(err, strconv.ErrSyntax)
		}},
		{"device list", func() error { _, err := ParseDevices("0,a"); return err }(), func(err error) bool {
			var se *SyntaxError
			return errors.As(err, &se) && se.What == "device list" && errors.Is(err, strconv.ErrSyntax)
		}},
		{"mesh", func() error { _, err := ParseMesh("a=2,a=2", nil); return err }(), func(err error) bool {
			var me *MeshError
			return errors.As(err, &me) && me.Mesh == "a=2,a=2"
		}},
		{"process", func() error { _, err := mesh.ProcessDevices(0, 3); return err }(), func(err error) bool {
			var me *MeshError
			return errors.As(err, &me) && me.Mesh == "data=2,model=4"
		}},
		{"spec syntax", spec(`P("x"`), func(err error) bool {
			var se *SyntaxError
			return errors.As(err, &se) && se.What == "spec" && se.Pos == 5
		}},
		{"spec axis", spec(`P("data", "x")`), func(err error) bool {
			var se *SpecError
			return errors.As(err, &se) && se.Axis == "x" && se.Spec.String() == `P("data", "x")`
		}},
		{"spec rank", spec(`P(None, None, None)`), func(err error) bool {
			var se *SpecError
			return errors.As(err, &se) && se.Axis == ""
		}},
		{"rule regexp", rules(`{"rules":[{"match":"(","spec":"P()"}]}`), func(err error) bool {
			var re *RulesError
			return errors.As(err, &re) && re.Rule == 1 && errors.Unwrap(err) != nil
		}},
		{"rule spec", rules(`{"rules":[{"match":"w","spec":"P(x)"}]}`), func(err error) bool {
			var re *RulesError
			var se *SyntaxError
			return errors.As(err, &re) && re.Rule == 1 && errors.As(err, &se) && se.What == "spec"
		}},
		{"rules default", rules(`{"default":"Q()"}`), func(err error) bool {
			var re *RulesError
			return errors.As(err, &re) && re.Rule == 0 && re.Msg == "default"
		}},
		{"unmatched", func() error {
			r, _ := ParseRules([]byte(`{"rules":[{"match":"^w$","spec":"P()"}]}`))
			_, _, err := r.SpecFor("b")
			return err
		}(), func(err error) bool {
			var ue *UnmatchedError
			return errors.As(err, &ue) && ue.Tensor == "b"
		}},
	}
	for _, c := range cases {
		if c.err == nil || !c.check(c.err) {
			t.Errorf("%s: %T %v", c.name, c.err, c.err)
		}
	}
}
