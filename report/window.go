package report

import (
	"fmt"
	"strconv"
	"strings"
)

// SettingError is a setting of a report that cannot be: a window past the array's
// end, say. Setting names it, in the words the caller gave.
type SettingError struct{ Setting, Msg string }

func (e *SettingError) Error() string { return e.Msg }

func settingf(setting, format string, args ...any) error {
	return &SettingError{setting, fmt.Sprintf(format, args...)}
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
