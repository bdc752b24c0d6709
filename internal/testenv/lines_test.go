package testenv

import (
	"slices"
	"testing"
)

func TestLines(t *testing.T) {
	errs, _ := Record(t, func(tb testing.TB) { Lines(tb, "rows", []string{"a", "b"}, []string{"a", "b"}) })
	if len(errs) != 0 {
		t.Errorf("equal lines: recorded %q", errs)
	}
	errs, _ = Record(t, func(tb testing.TB) { Lines(tb, "rows", []string{"a", "b"}, []string{"a"}) })
	if !slices.Equal(errs, []string{"rows:\na\nb\nwant:\na"}) {
		t.Errorf("other lines: recorded %q", errs)
	}
}
