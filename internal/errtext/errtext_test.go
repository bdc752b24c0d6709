package errtext

import (
	"errors"
	"testing"
)

func isField(f string) bool { return f == "To" || f == "In" }

func TestFill(t *testing.T) {
	flag := func(f string) string { return map[string]string{"To": "--to", "In": "IN"}[f] }
	cause := func(err error) string { return "<" + err.Error() + ">" }
	for _, c := range []struct {
		format      string
		args        []any
		lib, caller string
	}{
		{"missing {To}", nil, "missing To", "missing --to"},
		{"cannot read {In} %s: %s", []any{"x.npy", errors.New("npy: bad")}, "cannot read In x.npy: npy: bad", "cannot read IN x.npy: <npy: bad>"},
		{"{1,0:T(8,128)} {Out} {To", nil, "{1,0:T(8,128)} {Out} {To", "{1,0:T(8,128)} {Out} {To"},
		{"100%% {To} %d", []any{3}, "100% To 3", "100% --to 3"},
	} {
		if got := Fill(c.format, c.args, isField, nil, nil); got != c.lib {
			t.Errorf("Fill(%q) by the fields' names: %q, want %q", c.format, got, c.lib)
		}
		if got := Fill(c.format, c.args, isField, flag, cause); got != c.caller {
			t.Errorf("Fill(%q) in a caller's words: %q, want %q", c.format, got, c.caller)
		}
	}
}

func TestFirstField(t *testing.T) {
	cases := [][2]string{{"{1,0} then {In} and {To}", "In"}, {"{To} first", "To"}, {"{Out} {1,0}", ""}, {"no field", ""}, {"{In", ""}}
	for _, c := range cases {
		if f := FirstField(c[0], isField); f != c[1] {
			t.Errorf("FirstField(%q) = %q, want %q", c[0], f, c[1])
		}
	}
}
