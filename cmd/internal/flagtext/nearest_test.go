package flagtext

import "testing"

func TestNearest(t *testing.T) {
	names := []string{"to", "from", "dtype", "tensor", "all", "progress"}
	for s, want := range map[string]string{"too": "to", "ot": "to", "fro": "from", "dtpye": "dtype", "prog": "progress", "x": "", "mesh": ""} {
		if got := Nearest(s, names); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", s, got, want)
		}
	}
}
