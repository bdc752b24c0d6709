package layout

// DType is an XLA primitive type.
type DType uint8

// The XLA primitive types, in the order of xla_data.proto where it has one.
const (
	Invalid DType = iota
	Pred
	S1
	S2
	S4
	S8
	S16
	S32
	S64
	U1
	U2
	U4
	U8
	U16
	U32
	U64
	F16
	BF16
	F32
	F64
	F8E5M2
	F8E4M3
	F8E4M3FN
	F8E4M3B11FNUZ
	F8E3M4
	F8E5M2FNUZ
	F8E4M3FNUZ
	F4E2M1FN
	F8E8M0FNU
	C64
	C128
	Token
	Opaque
	numDTypes
)

var dtypeInfo = [numDTypes]struct {
	name string
	bits int
}{
	Invalid:       {"invalid", 0},
	Pred:          {"pred", 1},
	S1:            {"s1", 1},
	S2:            {"s2", 2},
	S4:            {"s4", 4},
	S8:            {"s8", 8},
	S16:           {"s16", 16},
	S32:           {"s32", 32},
	S64:           {"s64", 64},
	U1:            {"u1", 1},
	U2:            {"u2", 2},
	U4:            {"u4", 4},
	U8:            {"u8", 8},
	U16:           {"u16", 16},
	U32:           {"u32", 32},
	U64:           {"u64", 64},
	F16:           {"f16", 16},
	BF16:          {"bf16", 16},
	F32:           {"f32", 32},
	F64:           {"f64", 64},
	F8E5M2:        {"f8e5m2", 8},
	F8E4M3:        {"f8e4m3", 8},
	F8E4M3FN:      {"f8e4m3fn", 8},
	F8E4M3B11FNUZ: {"f8e4m3b11fnuz", 8},
	F8E3M4:        {"f8e3m4", 8},
	F8E5M2FNUZ:    {"f8e5m2fnuz", 8},
	F8E4M3FNUZ:    {"f8e4m3fnuz", 8},
	F4E2M1FN:      {"f4e2m1fn", 4},
	F8E8M0FNU:     {"f8e8m0fnu", 8},
	C64:           {"c64", 64},
	C128:          {"c128", 128},
	Token:         {"token", 0},
	Opaque:        {"opaque", 0},
}

var dtypeByName = func() map[string]DType {
	m := make(map[string]DType, numDTypes)
	for d := Pred; d < numDTypes; d++ {
		m[dtypeInfo[d].name] = d
	}
	return m
}()

// DTypeByName returns the type with XLA's lower-case name ("bf16", "f32", …).
func DTypeByName(name string) (DType, bool) {
	d, ok := dtypeByName[name]
	return d, ok
}

// DTypes lists every valid type, in declaration order.
func DTypes() []DType {
	out := make([]DType, 0, numDTypes-1)
	for d := Pred; d < numDTypes; d++ {
		out = append(out, d)
	}
	return out
}

// String returns XLA's name of the type.
func (d DType) String() string {
	if d >= numDTypes {
		return "invalid"
	}
	return dtypeInfo[d].name
}

// Bits is the type's logical bit width (pred is 1, s4 is 4, c64 is 64, token 0).
func (d DType) Bits() int {
	if d >= numDTypes {
		return 0
	}
	return dtypeInfo[d].bits
}

// StorageBits is the width an element takes in memory without an E(n) attribute:
// a whole number of bytes, so sub-byte types and pred take 8 bits, as in XLA.
func (d DType) StorageBits() int { return (d.Bits() + 7) / 8 * 8 }

// IsArray reports whether the type can be an array element (not token or opaque).
func (d DType) IsArray() bool { return d > Invalid && d < Token }

// IsSubByte reports whether the type is narrower than a byte and not pred,
// XLA's IsSubByteNonPredType.
func (d DType) IsSubByte() bool { return d != Pred && d.Bits() > 0 && d.Bits() < 8 }

// IsUnsigned reports whether the type is an unsigned integer (u1…u64).
func (d DType) IsUnsigned() bool { return d >= U1 && d <= U64 }

// IsSigned reports whether the type is a signed integer (s1…s64).
func (d DType) IsSigned() bool { return d >= S1 && d <= S64 }

// IsInteger reports whether the type is a signed or unsigned integer.
func (d DType) IsInteger() bool { return d.IsSigned() || d.IsUnsigned() }

// IsFloat reports whether the type is a real floating-point type.
func (d DType) IsFloat() bool { return d >= F16 && d <= F8E8M0FNU }

// IsComplex reports whether the type is c64 or c128.
func (d DType) IsComplex() bool { return d == C64 || d == C128 }
