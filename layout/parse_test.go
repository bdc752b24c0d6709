package layout

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// Accepted parse cases from the spec, with their canonical printing.
var accepted = []struct{ in, out string }{
	{"f32[123,456]", "f32[123,456]{1,0}"},
	{"f32[123,456]{0,1}", "f32[123,456]{0,1}"},
	{"f32[?,784]", "f32[?,784]{1,0}"},
	{"f32[123,<=456]", "f32[123,<=456]{1,0}"},
	{"(f32[42], u32[<=123,<=456])", "(f32[42]{0}, u32[<=123,<=456]{1,0})"},
	{"(f32[1572864],s8[5120,1024])", "(f32[1572864]{0}, s8[5120,1024]{1,0})"},
	{"(f32[1],(f32[2], token[]), opaque[], f32[3])", "(f32[1]{0}, (f32[2]{0}, token[]), opaque[], f32[3]{0})"},
	{"opaque[]", "opaque[]"},
	{"token[]", "token[]"},
	{"b(s32[])", "b(s32[])"},
	{"b(f32[8,16]{1,0})", "b(f32[8,16]{1,0})"},
	{"f32[123,456]{0,1:T(2,128)}", "f32[123,456]{0,1:T(2,128)}"},
	{"f32[123,456,789]{0,1,2:T(2, * , 128)}", "f32[123,456,789]{0,1,2:T(2,*,128)}"},
	{"bf16[123,456,789]{2,1,0:T(2,*,128)(2,1)}", "bf16[123,456,789]{2,1,0:T(2,*,128)(2,1)}"},
	{"s4[123,456]{1,0:T(2,128)E(4)}", "s4[123,456]{1,0:T(2,128)E(4)}"},
	{"pred[123,456]{1,0:T(2,128)S(3)}", "pred[123,456]{1,0:T(2,128)S(3)}"},
	{"pred[123,456]{1,0:S(3)}", "pred[123,456]{1,0:S(3)}"},
	{"f32[123,456]{1,0:T(16,128)M(1024)}", "f32[123,456]{1,0:T(16,128)M(1024)}"},
	{"pred[123,456]{1,0:T(2,128)S(3)SC(1:200)}", "pred[123,456]{1,0:T(2,128)S(3)SC(1:200)}"},
	{"pred[123,456]{1,0:S(3)SC(0:10)(1:4,5)}", "pred[123,456]{1,0:S(3)SC(0:10)(1:4,5)}"},
	{"pred[123,456]{1,0:SC(1:50,200)}", "pred[123,456]{1,0:SC(1:50,200)}"},
	{"f32[ 1, 2,3, 4, 5]{0, 1, 2,3, 4 }", "f32[1,2,3,4,5]{0,1,2,3,4}"},
	{"u32[]{:T(128)}", "u32[]{:T(128)}"},
	{"u32[]{:S(2)}", "u32[]{:S(2)}"},
	{"f32[8,4,1]{0,1,2:T(4,128)}", "f32[8,4,1]{0,1,2:T(4,128)}"},
	{"f32[8,4,1]{1,2,0:T(1,128)}", "f32[8,4,1]{1,2,0:T(1,128)}"},
	{"u32[2,8,128]{2,1,0:T(2,128)}", "u32[2,8,128]{2,1,0:T(2,128)}"},
	{"bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}", "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}"},
	{"bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)}", "bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)}"},
	{"f32[2,3,4]{0,1,2:T(512)}", "f32[2,3,4]{0,1,2:T(512)}"},
	{"bf16[2,3,4]{1,2,0:T(16,256)(2,1)}", "bf16[2,3,4]{1,2,0:T(16,256)(2,1)}"},
	{"bf16[8,2,3,1004]{3,2,1,0:T(2,*,*,128)}", "bf16[8,2,3,1004]{3,2,1,0:T(2,*,*,128)}"},
	// Sparse layouts keep their dim level types and sparse-only attributes (pre-2025
	// XLA printed them; newer XLA parses and drops D(…), which would hide that the
	// array is sparse).
	{"f32[10,10]{1,0:D(D,C)}", "f32[10,10]{1,0:D(D,C)}"},
	{"f32[2,3,4,5]{3,2,1,0:D(D,C~,S+,H+~)}", "f32[2,3,4,5]{3,2,1,0:D(D,C~,S+,H+~)}"},
	{"f32[10,10]{1,0:D(D,D)T(8,128)}", "f32[10,10]{1,0:D(D,D)T(8,128)}"},
	{"f32[10,10]{1,0:D(D,C)*(u32)}", "f32[10,10]{1,0:D(D,C)*(u32)}"},
	{"f32[10,10]{1,0:D(D, C) #(u16) *(u32) S(1)}", "f32[10,10]{1,0:D(D,C)#(u16)*(u32)S(1)}"},
	{"f32[10,10]{1,0:D(C,S)#(u64)P(s32[10,20]{1,0})}", "f32[10,10]{1,0:D(C,S)#(u64)P(s32[10,20]{1,0})}"},
	{"f32[10,10]{1,0:D(D,D)}", "f32[10,10]{1,0:D(D,D)}"},
	{"f32[]", "f32[]"},
	{"f32[2]{0:E(32)}", "f32[2]{0:E(32)}"},
	{"s4[2]{0:E(8)}", "s4[2]{0:E(8)}"},
	{"s2[2]{0:E(4)}", "s2[2]{0:E(4)}"},
	{"(f32[1], f32[2], f32[3], f32[4], f32[5], f32[6])", "(f32[1]{0}, f32[2]{0}, f32[3]{0}, f32[4]{0}, f32[5]{0}, /*index=5*/f32[6]{0})"},
	{"f32[0,3]", "f32[0,3]{1,0}"},
	{"f8e4m3fn[4]{0}", "f8e4m3fn[4]{0}"},
	{"()", "()"},
}

func TestParseAccepted(t *testing.T) {
	for _, c := range accepted {
		s, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := s.String(); got != c.out {
			t.Errorf("Parse(%q).String() = %q, want %q", c.in, got, c.out)
		}
		checkAttrsKept(t, c.in, s.String())
		again, err := Parse(s.String())
		if err != nil || again.String() != c.out {
			t.Errorf("round trip of %q: %v %q", c.out, err, again.String())
		}
	}
}

func TestParseLayoutRoundTrip(t *testing.T) {
	for _, in := range []string{
		"{}", "{1,2,0}", "{3,2,1,0:T(42,123)(4,5)}", "{3,2,1,0:T(*,*,42,123)}", "{3,2,1,0:L(100)}",
		"{3,2,1,0:#(u32)}", "{3,2,1,0:*(u16)}", "{3,2,1,0:E(42)}", "{3,2,1,0:S(3)}",
		"{0,1:SC(0:3)(1:0,4)}", "{0,1:M(123)}", "{3,2,1,0:T(42,123)(4,5)L(100)E(42)}",
		"{0,1:P(s32[10,20]{1,0})}",
	} {
		l, err := ParseLayout(in)
		if err != nil {
			t.Errorf("ParseLayout(%q): %v", in, err)
			continue
		}
		if l.String() != in {
			t.Errorf("ParseLayout(%q).String() = %q", in, l.String())
		}
		l2, _ := ParseLayout(l.String())
		if !l.Equal(l2) {
			t.Errorf("%q: round trip not Equal", in)
		}
	}
	a, _ := ParseLayout("{1,0:M(8)}")
	b, _ := ParseLayout("{1,0}")
	if !a.Equal(b) {
		t.Error("Equal must ignore M(n), as XLA's Layout::Equal does")
	}
}

// Rejected parse cases: the error is a *ParseError whose message contains want and whose
// position is pos (-1: any position inside the input).
var rejected = []struct {
	in   string
	pos  int
	want string
}{
	{"f32[123,456]foobar{0,1}", 12, "extra content"},
	{"f32[123,456]{foo}", 12, "extra content"},
	{"f32[123,456]dense{foo}", 12, "extra content"},
	{"f32[123,456,789]{1:T(2, * , 128)}", 16, "dimensions size is 3, but minor to major size is 1"},
	{"b()", 2, "expected primitive type"},
	{"b(s32[], f32[])", 7, "at the end of buffer shape"},
	{"f32[10,10]{1,0:D(X,C)}", 17, "DimLevelType"},
	{"f32[10,10]{1,0:D(D,C,C)}", 15, "3 dim level types for 2 dimensions"},
	{"f32[10,10]{1,0:D()}", 16, "empty D()"},
	{"f32[10,10]{1,0:D(D,D)*(u32)}", 21, "dense"},
	// XLA refuses a dense level that is not unique or not ordered, and a tiled sparse layout.
	{"f32[10,10]{1,0:D(D+,C)}", 17, "a dense level D is unique and ordered: XLA refuses D+"},
	{"f32[10,10]{1,0:D(D~,C)}", 17, "XLA refuses D~"},
	{"f32[10,10]{1,0:D(C, D+~)}", 20, "XLA refuses D+~"},
	{"f32[10,10]{1,0:D(D,C)T(8,128)}", 21, "a sparse layout (D(…) with C, S or H) cannot be tiled"},
	{"f32[10,10]{1,0:D(D,C)*(f32)}", 23, "unsigned integer"},
	{"f32[10,10]{1,0:T(128,8)P(f32[10,10])}", 23, "physical shape"},
	{"F32[2]", 0, "unknown primitive type"},
	{"Pred[]", 0, "unknown primitive type"},
	{"f32[2]{}", 6, "extra content"},
	{"f32[]{}", 5, "extra content"},
	{"f32[2,3]{1,0:E(4)T(8,128)}", 17, "expected '}'"},
	{"f32[2,3]{1,0:T(8,128)T(2,1)}", 21, "expected '}'"},
	{"f32[-1]", 4, "negative"},
	{"f32[<=-5]", 6, "negative"},
	{"f32[<=?]", 6, "expected an integer"},
	{"tuple[]", 0, "unknown primitive type"},
	{"buffer[]", 0, "unknown primitive type"},
	{"opaque_type[]", 0, "unknown primitive type"},
	{"f32[2,3]{1,0:L(0)}", 15, "at least 1"},
	{"f32[2,3]{1,0:L(-1)}", 15, "at least 1"},
	{"f32[2,3]{1,0:T(2,-1)}", 17, "at least 1"},
	{"f32[2,3]{0,0}", 11, "repeats dimension 0"},
	{"f32[2,3]{1,2}", 11, "out of range"},
	{"f32[2,3]{1,0:T()}", 14, "empty tile"},
	{"f32[2,3]{1,0:T(0,128)}", 15, "at least 1"},
	{"f32[2,3]{1,0:E(-4)}", 15, "negative"},
	{"f32[2,3]{1,0:#(u32)}", 13, "dense"},
	{"f32[2,3]{1,0:*(u16)}", 13, "dense"},
	{"f32[2,3]{1,0:T(2,*)}", 18, "cannot end with a combined"},
	{"f32[2,3]{1,0:T(2,2)(*,1)}", 20, "only allowed in the first tile"},
	{"f32[2,3]{1,0:T}", 14, "expected '('"},
	{"f32[2,3]{1,0:S(300)}", 15, "int8"},
	{"f32[2,3]{1,0:SC(5:1)}", 8, "out of range"},
	{"f32[2,3]{1,0:SC(0:3,1)}", 20, "increasing"},
	{"f32[99999999999999999999]", 4, "out of range"},
	{"f32[2,3", 7, "expected ','"},
	{"(f32[2], f32[3]", 15, "expected ','"},
	{"", 0, "expected a shape"},
	{"f32[2]{0} /* unterminated", 10, "extra content"},
	{"token[2]", 0, "takes no dimensions"},
	// XLA's printer tests print these, but no buffer can hold them: an element must hold
	// the type's bits and be addressable (issue #14 item 14).
	{"pred[8,8,8]{0,2,1:T(8,128)E(32)}", 28, "E(32) on pred: element size must be 1, 2, 4 or 8 bits and at least 1"},
	{"pred[8,8,8]{0,2,1:E(32)}", 20, "1, 2, 4 or 8 bits"},
	{"f32[8,128]{1,0:E(3)}", 17, "E(3) on f32: a 32-bit type takes E(32) or no E"},
	{"bf16[2]{0:E(32)}", 12, "16-bit type"},
	{"s4[2]{0:E(2)}", 10, "at least 4"},
	{"s2[2]{0:E(3)}", 10, "1, 2, 4 or 8 bits"},
	{"(f32[2], u8[2]{0:E(9)})", 19, "8-bit type"},
	// Footprints beyond int64 bytes (issue #14 item 2): ⌈a/b⌉ overflowed to 0 elements.
	{"f32[2,2]{1,0:T(9223372036854775807,128)}", 8, "overflows int64"},
	{"f32[2,2]{1,0:T(9223372036854775807)}", 8, "overflows int64"},
	{"f32[2,2]{1,0:T(1)L(9223372036854775807)}", 8, "counted in bits"},
	{"s8[4611686018427387905]{0:T(1)L(4611686018427387904)}", 23, "L(4611686018427387904) rounds 4611686018427387905 elements up"},
	{"f32[]{:T(1)L(9223372036854775807)}", 5, "overflows int64"},
	{"f32[2,2]{1,0:T(1152921504606846976)}", 8, "counted in bits"},
	{"f32[2305843009213693952]", 0, "counted in bits"},
	{"s8[4294967296,4294967296]", 0, "element count overflows"},
	{"f32[3037000500,3037000500]{1,0:T(*,1)}", 26, "element count overflows int64"},
	{"f32[1]{0:T" + strings.Repeat("(1)", 70) + "}", 6, "more than the 64 dims supported"},
}

func TestParseRejected(t *testing.T) {
	for _, c := range rejected {
		_, err := Parse(c.in)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q) = %v, want a *ParseError", c.in, err)
			continue
		}
		if !strings.Contains(pe.Msg, c.want) || pe.Pos != c.pos {
			t.Errorf("Parse(%q): pos %d %q, want pos %d containing %q", c.in, pe.Pos, pe.Msg, c.pos, c.want)
		}
		if !strings.Contains(err.Error(), "at byte") {
			t.Errorf("error text %q does not name the position", err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, c := range accepted {
		f.Add(c.in)
	}
	for _, c := range rejected {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(in)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Pos < 0 || pe.Pos > len(in) {
				t.Fatalf("Parse(%q): bad error %v", in, err)
			}
			return
		}
		out := s.String()
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(%q) printed %q, which does not parse: %v", in, out, err)
		}
		if again.String() != out {
			t.Fatalf("round trip %q → %q → %q", in, out, again.String())
		}
		// What parses compiles (unless it has no size), and keeps the index invariants.
		checkAttrsKept(t, in, out)
		ix, err := Compile(s)
		if err != nil && !errors.Is(err, ErrUnsized) && !errors.Is(err, ErrSparse) {
			t.Fatalf("Parse(%q) accepts what Compile rejects: %v", in, err)
		}
		if err == nil {
			checkIndexer(t, rand.New(rand.NewPCG(1, 2)), ix)
		}
	})
}
