package sharding

import (
	"encoding/json"
	"slices"
	"testing"
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
		b, err := json.Marshal(c.ids)
		if err != nil || string(b) != c.want {
			t.Errorf("%d ids: %s, %v; want %s", len(c.ids), b, err, c.want)
			continue
		}
		var back DeviceIDs
		if err := json.Unmarshal(b, &back); err != nil || !slices.Equal(back, c.ids) {
			t.Errorf("%s reads back as %d ids, %v", b, len(back), err)
		}
	}
	for _, bad := range []string{`"3-1"`, `"0-3,2-5"`, `"x"`, `"-1"`, `"0-"`, `""`, `"0-1048576"`, `"0-9999999999999"`, `"1,1"`} {
		var d DeviceIDs
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("%s: read as %d ids, want an error", bad, len(d))
		}
	}
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
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var back DeviceIDs
		if err := json.Unmarshal(b, &back); err != nil || !slices.Equal(back, d) {
			t.Fatalf("%s → %s → %d ids, %v", data, b, len(back), err)
		}
	})
}
