package manifest

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpulayout/tpulayout/sharding/placement"
)

func TestDeviceIDsJSON(t *testing.T) {
	seq := func(lo, hi int) DeviceIDs {
		var d DeviceIDs
		for i := lo; i < hi; i++ {
			d = append(d, i)
		}
		return d
	}
	plain := func(d DeviceIDs) string { b, _ := json.Marshal([]int(d)); return string(b) }
	scattered := DeviceIDs{}
	for i := 0; i < 100; i++ {
		scattered = append(scattered, 3*i)
	}
	for _, c := range []struct {
		ids  DeviceIDs
		want string
	}{
		{DeviceIDs{1, 5}, `[1,5]`},
		{seq(0, 64), plain(seq(0, 64))}, // short: an array
		{seq(0, 1<<20), `"0-1048575"`},
		{append(seq(0, 40), seq(100, 140)...), `"0-39,100-139"`},
		{scattered, plain(scattered)}, // no runs: an array
		{append(DeviceIDs{-1}, seq(0, 100)...), plain(append(DeviceIDs{-1}, seq(0, 100)...))}, // not what text says
		{append(seq(0, 100), seq(0, 100)...), plain(append(seq(0, 100), seq(0, 100)...))},     // not increasing
	} {
		if b := roundTrip(t, c.ids); string(b) != c.want {
			t.Errorf("%d ids: %s; want %s", len(c.ids), b, c.want)
		}
	}
	for _, bad := range []string{`"3-1"`, `"0-3,2-5"`, `"x"`, `"-1"`, `"0-"`, `""`, `"0-1048576"`, `"0-9999999999999"`, `"1,1"`} {
		var d DeviceIDs
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("%s: read as %d ids, want an error", bad, len(d))
		}
	}
}

// roundTrip marshals ids and fails t unless the JSON reads back as the same list; it
// returns the JSON.
func roundTrip(t *testing.T, ids DeviceIDs) []byte {
	t.Helper()
	b, err := json.Marshal(ids)
	if err != nil {
		t.Fatalf("%d ids: %v", len(ids), err)
	}
	var back DeviceIDs
	if err := json.Unmarshal(b, &back); err != nil || !slices.Equal(back, ids) {
		t.Fatalf("%d ids → %s → %d ids, %v", len(ids), b, len(back), err)
	}
	return b
}

// Any device list that reads prints back as a list that reads the same.
func FuzzDeviceIDs(f *testing.F) {
	for _, s := range []string{`"0-1048575"`, `"0-3,8-11"`, `[1,5]`, `"7"`, `"3-1"`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d DeviceIDs
		if json.Unmarshal(data, &d) != nil {
			return
		}
		roundTrip(t, d)
	})
}

// Runs may end at the top of int: they read as the ids they say, at once (issue 44.1:
// the run's counter wrapped and the reader looped while its memory grew).
func TestDeviceRunsAtTopOfInt(t *testing.T) {
	const top = math.MaxInt
	for _, c := range []struct {
		text string
		want DeviceIDs
		err  string // a part of the error, or "" for none
	}{
		{"9223372036854775807", DeviceIDs{top}, ""},
		{"9223372036854775805-9223372036854775807", DeviceIDs{top - 2, top - 1, top}, ""},
		{"0-1,9223372036854775806-9223372036854775807", DeviceIDs{0, 1, top - 1, top}, ""},
		{"9223372036854775807,0", nil, `run 2, "0", does not increase`},
		{"9223372036854775807,9223372036854775807", nil, "run 2"},
		{"9223372036854775806-9223372036854775807,9223372036854775807", nil, "does not increase"},
		{"0-9223372036854775807", nil, `run 1, "0-9223372036854775807", would make more than 1048576 devices`},
		{"0-1048574,1048576-1048577", nil, `run 2, "1048576-1048577", would make more than`},
		{"9223372036854775807-9223372036854775808", nil, "is not N or N-M"},
	} {
		done := make(chan struct{})
		var got DeviceIDs
		var err error
		go func() {
			defer close(done)
			got, err = parseDeviceRuns(c.text)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%q: still reading after 5 s", c.text)
		}
		switch {
		case c.err == "" && (err != nil || !slices.Equal(got, c.want)):
			t.Errorf("%q: %v, %v; want %v", c.text, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: %d ids, %v; want an error saying %q", c.text, len(got), err, c.err)
		}
	}
}

// Any text the run parser reads is a strictly increasing list of non-negative ids, at
// most placement.MaxDevices of them, that its compact form says again; anything else is an
// error, never a hang.
func FuzzDeviceRuns(f *testing.F) {
	for _, s := range []string{"0-1048575", "0-3,8-11", "7", "3-1", "", "1,1",
		"9223372036854775807", "9223372036854775800-9223372036854775807",
		"9223372036854775807,0", "0-9223372036854775807", "-5", "1-2-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := parseDeviceRuns(s)
		if err != nil {
			return
		}
		if len(ids) == 0 || len(ids) > placement.MaxDevices || !increasing(ids) {
			t.Fatalf("%q: %d ids, not 1 … %d increasing non-negative ones", s, len(ids), placement.MaxDevices)
		}
		roundTrip(t, ids)
	})
}
