package convert

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
)

// What Out's padding holds: "zero" (also ""), "leave" (not written), or a number that
// Out's element type holds exactly.

// PadOption reads a Pad setting as the relayout option it asks for. Errors are about
// the field Pad.
func PadOption(s string) (relayout.Option, error) {
	switch strings.ToLower(s) {
	case "", "zero", "zeros":
		return relayout.WithPadZero(), nil
	case "leave":
		return relayout.WithPadLeave(), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if errors.Is(err, strconv.ErrRange) {
		return nil, names{}.errf(Setting, "{Pad} %s is outside float64's range, the widest there is", s)
	}
	if err != nil {
		return nil, names{}.errf(Setting, "bad {Pad} %q: want zero, leave or a number", s)
	}
	return relayout.WithPadValue(v), nil
}

// CheckPad checks that a Pad number is exactly a value of Out's element type dt: the
// pad is converted like an element (saturating, truncating, rounding), so a value
// outside dt's range or between its values would be written as another one unsaid.
// It travels to relayout as a float64, so it must be exact in float64 first.
func CheckPad(text string, dt layout.DType) error {
	switch strings.ToLower(text) {
	case "", "zero", "zeros", "leave":
		return nil
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil // PadOption reports it
	}
	var exact *big.Rat // the number the text means; nil for NaN and infinities
	if !math.IsNaN(v) && !math.IsInf(v, 0) {
		var ok bool
		if exact, ok = new(big.Rat).SetString(text); !ok {
			exact = new(big.Rat).SetFloat64(v)
		}
	}
	return checkPad(text, v, exact, dt)
}

// CheckPadValue is CheckPad for a pad given as a float64 (an API's number, not text):
// v must be exactly a value of dt. Messages print v shortest, and whole numbers below
// 1e21 exactly.
func CheckPadValue(v float64, dt layout.DType) error {
	var exact *big.Rat
	if !math.IsNaN(v) && !math.IsInf(v, 0) {
		exact = new(big.Rat).SetFloat64(v)
	}
	return checkPad(numText(v), v, exact, dt)
}

// checkPad checks the pad v, which text gave and which is exactly the number exact
// (nil for NaN and infinities).
func checkPad(text string, v float64, exact *big.Rat, dt layout.DType) error {
	if !buffer.CanConvert(dt, layout.F64) {
		return names{}.errf(Setting, "{Pad} %s: %s padding can only be zero or leave", text, dt)
	}
	finite := exact != nil
	if dt == layout.Pred || dt.IsInteger() {
		lo, hi, _ := dt.IntRange()
		switch {
		case exact == nil || !exact.IsInt():
			return names{}.errf(Setting, "{Pad} %s is not a whole number in %s's range %s to %s", text, dt, lo, hi)
		case exact.Num().Cmp(lo) < 0 || exact.Num().Cmp(hi) > 0:
			return names{}.errf(Setting, "{Pad} %s is outside %s's range %s to %s", text, dt, lo, hi)
		case exact.Cmp(new(big.Rat).SetFloat64(v)) != 0:
			return names{}.errf(Setting, "{Pad} %s cannot be written exactly: the pad travels as a float64, which holds %s", text, numText(v))
		}
		return nil
	}
	if lo, hi := floatRange(dt); finite && (v < lo || v > hi) {
		return names{}.errf(Setting, "{Pad} %s is outside %s's range %s to %s", text, dt, numText(lo), numText(hi))
	}
	back := math.Float64frombits(buffer.ConvertElement(layout.F64, dt, buffer.ConvertElement(dt, layout.F64, math.Float64bits(v))))
	if !finite {
		if math.IsNaN(v) && math.IsNaN(back) || back == v {
			return nil
		}
		return names{}.errf(Setting, "{Pad} %s: %s has no %s (it would hold %s)", text, dt, strings.TrimPrefix(numText(v), "+"), numText(back))
	}
	if exact.Cmp(new(big.Rat).SetFloat64(v)) != 0 || back != v || math.Signbit(back) != math.Signbit(v) {
		held := numText(back)
		if r, _ := new(big.Rat).SetString(held); r.Cmp(new(big.Rat).SetFloat64(back)) != 0 {
			held = strconv.FormatFloat(back, 'g', 30, 64) // the shortest form is the text again
		}
		return names{}.errf(Setting, "{Pad} %s is not exact in %s, which would hold %s", text, dt, held)
	}
	return nil
}

// floatRange is the range of the finite values of a floating-point type.
func floatRange(dt layout.DType) (lo, hi float64) {
	switch dt {
	case layout.F64:
		return -math.MaxFloat64, math.MaxFloat64
	case layout.F32:
		return -math.MaxFloat32, math.MaxFloat32
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for b := range uint64(1) << dt.Bits() { // 16 bits at most
		x := math.Float64frombits(buffer.ConvertElement(layout.F64, dt, b))
		if !math.IsInf(x, 0) && !math.IsNaN(x) {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	return lo, hi
}

// numText prints a number shortest, and whole numbers below 1e21 exactly.
func numText(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e21 {
		return new(big.Float).SetFloat64(v).Text('f', 0)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
