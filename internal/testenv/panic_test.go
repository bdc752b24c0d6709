package testenv

import (
	"slices"
	"testing"
)

func TestMustPanic(t *testing.T) {
	errs, stopped := Record(t, func(tb testing.TB) { MustPanic(tb, "a panic", func() { panic("x") }) })
	if len(errs) != 0 || stopped {
		t.Errorf("a panicking f: recorded %q, stopped %v", errs, stopped)
	}
	errs, stopped = Record(t, func(tb testing.TB) { MustPanic(tb, "a return", func() {}) })
	if !slices.Equal(errs, []string{"a return: no panic"}) || stopped {
		t.Errorf("a returning f: recorded %q, stopped %v", errs, stopped)
	}
}
