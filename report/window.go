package report

import (
	"slices"

	"fmt"
	"github.com/tpulayout/tpulayout/internal/errtext"
	"strconv"
	"strings"
)

// SettingError is a setting or an argument of a report that cannot be: a window past
// the array's end, a generation that does not parse. Setting names it: a field or
// parameter of this package's functions ("To", "Gen", "Src", "Block"; see Settings),
// or the words a caller gave (GridWords). Err is the cause, which it unwraps to.
type SettingError struct {
	Setting string
	Err     error
	format  string // fmt's format, in which {Setting} stands for a setting of Settings
	args    []any  // fmt's arguments; the errors among them are causes
}

// Settings are the names of the settings and arguments that messages name as {Name}.
var Settings = []string{"To", "Gen", "Words", "Byte", "Element", "Block", "Src", "Dst", "Shape"}

func (e *SettingError) Error() string { return e.Words(nil, nil) }
func (e *SettingError) Unwrap() error { return e.Err }

// Words is the message with each setting named by name and each cause worded by
// cause; a nil name names a setting by itself, a nil cause words it by its Error().
func (e *SettingError) Words(name func(setting string) string, cause func(error) string) string {
	return errtext.Fill(e.format, e.args, isSetting, name, cause)
}

func isSetting(s string) bool { return slices.Contains(Settings, s) }

// settingf makes a SettingError about setting, whose message format names settings as
// {Name}; its cause is the first error among args.
func settingf(setting, format string, args ...any) error {
	e := &SettingError{Setting: setting, format: format, args: args}
	for _, a := range args {
		if err, ok := a.(error); ok {
			e.Err = err
			break
		}
	}
	return e
}

// window is a half-open range [lo, hi) of one dim, as show's --rows and --cols give it
// ("A:B", like a Python slice: "A:" runs to the end, ":B" from 0).
type window struct {
	text   string // as given; "" when the flag is absent
	lo, hi int64
}

// parseWindow reads --rows or --cols (flag) against n, the size of dim, which shows as
// what ("rows" or "columns"); dim is -1 when an array of this rank has no such dim.
func parseWindow(flag, text string, dim int, n int64, what string, rank int) (window, error) {
	if text == "" {
		return window{lo: 0, hi: n}, nil
	}
	if dim < 0 {
		return window{}, settingf(flag, "%s %s: an array of rank %d shows no %s", flag, text, rank, what)
	}
	a, b, ok := strings.Cut(text, ":")
	if !ok {
		return window{}, settingf(flag, "bad %s %q: want A:B, the %s from A up to but not including B", flag, text, what)
	}
	lo, hi := int64(0), n
	var err error
	if a = strings.TrimSpace(a); a != "" {
		if lo, err = strconv.ParseInt(a, 10, 64); err != nil || lo < 0 {
			return window{}, settingf(flag, "bad %s %q: %q is not a %s number ≥ 0", flag, text, a, strings.TrimSuffix(what, "s"))
		}
	}
	if b = strings.TrimSpace(b); b != "" {
		if hi, err = strconv.ParseInt(b, 10, 64); err != nil || hi < 0 {
			return window{}, settingf(flag, "bad %s %q: %q is not a %s number ≥ 0", flag, text, b, strings.TrimSuffix(what, "s"))
		}
	}
	switch {
	case hi > n:
		return window{}, settingf(flag, "%s %s reaches past the end: dim %d has %d %s (0:%d)", flag, text, dim, n, what, n)
	case lo >= hi:
		return window{}, settingf(flag, "%s %s is empty: A must be less than B", flag, text)
	}
	return window{text: text, lo: lo, hi: hi}, nil
}

// describe is the window for captions: "rows 8:16 of dim 0".
func (w window) describe(what string, dim int) string {
	return fmt.Sprintf("%s %d:%d of dim %d", what, w.lo, w.hi, dim)
}
