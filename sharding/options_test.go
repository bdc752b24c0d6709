package sharding

import (
	"slices"
	"testing"
)

// TestTextOptions: Devices and Process from text, with the command's messages and
// as usage errors.
func TestTextOptions(t *testing.T) {
	if ids, err := DevicesOption("[3, 2,1,0]"); err != nil || !slices.Equal(ids, []int{3, 2, 1, 0}) {
		t.Errorf("DevicesOption: %v, %v", ids, err)
	}
	_, err := DevicesOption("0,x")
	if ce, ok := err.(*ConvertError); !ok || !ce.Setting || errMsg(err) != `Devices: bad device list "0,x": "x" is not a device id` {
		t.Errorf("DevicesOption(0,x): %v", err)
	}
	if i, n, err := ProcessOption("1/4"); err != nil || i != 1 || n != 4 {
		t.Errorf("ProcessOption(1/4): %d, %d, %v", i, n, err)
	}
	for _, bad := range []string{"4/4", "-1/2", "1", "0/0", "a/b", ""} {
		_, _, err := ProcessOption(bad)
		want := `bad Process "` + bad + `": want I/N with 0 ≤ I < N, such as 0/4`
		if ce, ok := err.(*ConvertError); !ok || !ce.Setting || errMsg(err) != want {
			t.Errorf("ProcessOption(%q): %v", bad, err)
		}
	}
}
