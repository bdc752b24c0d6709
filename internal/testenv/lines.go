package testenv

import (
	"slices"
	"strings"
	"testing"
)

// Lines fails t, naming what and showing both, unless got and want are the same lines.
func Lines(t testing.TB, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
