package layout

import "math/big"

// IntRange is the range of values of an integer type, and 0 to 1 for pred; ok is false
// for every other type. Exact for 64-bit types, which no float64 bound is.
func (d DType) IntRange() (lo, hi *big.Int, ok bool) {
	n := uint(d.Bits())
	switch {
	case d == Pred:
		return big.NewInt(0), big.NewInt(1), true
	case d.IsSigned():
		hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), n-1), big.NewInt(1))
		return new(big.Int).Neg(new(big.Int).Add(hi, big.NewInt(1))), hi, true
	case d.IsUnsigned():
		return big.NewInt(0), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), n), big.NewInt(1)), true
	}
	return nil, nil, false
}
