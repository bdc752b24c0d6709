package testenv

import (
	"slices"
	"testing"
)

func TestJSON(t *testing.T) {
	errs, stopped := Record(t, func(tb testing.TB) {
		if got := JSON(tb, map[string]any{"a": []int{1, 2}}); got != `{"a":[1,2]}` {
			tb.Errorf("JSON = %s", got)
		}
	})
	if len(errs) != 0 || stopped {
		t.Errorf("a map: recorded %q, stopped %v", errs, stopped)
	}
	errs, stopped = Record(t, func(tb testing.TB) { JSON(tb, func() {}) })
	if !slices.Equal(errs, []string{"json: unsupported type: func()"}) || !stopped {
		t.Errorf("a func: recorded %q, stopped %v", errs, stopped)
	}
}
