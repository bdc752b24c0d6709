package layout

// Shapes travel through JSON (and any other text encoding) in XLA's text form, the one
// [Parse] reads and [Shape.String] prints, rather than as Go structs: a program reading
// `tpulayout info --json` gets "bf16[3,5]{1,0:T(8,128)(2,1)}", not field numbers.

// MarshalText implements [encoding.TextMarshaler]: the shape's XLA text.
func (s Shape) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements [encoding.TextUnmarshaler] with [Parse].
func (s *Shape) UnmarshalText(text []byte) error {
	sh, err := Parse(string(text))
	if err != nil {
		return err
	}
	*s = sh
	return nil
}
