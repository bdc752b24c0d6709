package compilehook

import (
	"slices"
	"testing"
)

func TestSet(t *testing.T) {
	Compiled("unheard")
	var got []string
	restore := Set(func(s string) { got = append(got, s) })
	if !On() {
		t.Error("On is false with a hook set")
	}
	Compiled("a")
	Compiled("b")
	restore()
	Compiled("after")
	if On() {
		t.Error("On is true after restore")
	}
	if want := []string{"a", "b"}; !slices.Equal(got, want) {
		t.Errorf("heard %q, want %q", got, want)
	}
}
