package manifest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/sharding/placement"
)

// DeviceIDs lists device ids. In a manifest a long list that is a few runs of
// consecutive ids is written as text, "0-1048575" or "0-3,8-11": a fully replicated
// tensor on a mesh of a million devices lists them in a dozen bytes, not 8 MB. Short
// lists and lists without runs stay JSON arrays; both forms are read.
type DeviceIDs []int

// compactAbove is the length from which a list with runs is written as text; the
// meshes of everyday conversions (up to 64 devices) keep their arrays.
const compactAbove = 64

func (d DeviceIDs) MarshalJSON() ([]byte, error) {
	if len(d) <= compactAbove || !increasing(d) {
		return json.Marshal([]int(d))
	}
	text, runs := d.runText()
	if runs*4 > len(d) { // few runs: the array says it as well
		return json.Marshal([]int(d))
	}
	return json.Marshal(text)
}

// RunText writes d in the text form, whatever its length: each run of consecutive ids
// as "a-b" (one id alone), the runs separated by commas: "0-3,8-11", "0,4".
func (d DeviceIDs) RunText() string {
	text, _ := d.runText()
	return text
}

func (d DeviceIDs) runText() (string, int) {
	var b strings.Builder
	runs := 0
	for i := 0; i < len(d); {
		j := i
		for j+1 < len(d) && d[j+1] == d[j]+1 {
			j++
		}
		if runs > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(d[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(d[j]))
		}
		runs++
		i = j + 1
	}
	return b.String(), runs
}

func (d *DeviceIDs) UnmarshalJSON(data []byte) error {
	if len(data) == 0 || data[0] != '"' {
		return json.Unmarshal(data, (*[]int)(d))
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	ids, err := parseDeviceRuns(s)
	if err != nil {
		return err
	}
	*d = ids
	return nil
}

// parseDeviceRuns reads "a-b,c,…": each run increasing and after the one before, at
// most placement.MaxDevices ids in all. Ids may reach the top of int; the arithmetic counts a
// run's ids (b-a, which cannot overflow for 0 ≤ a ≤ b) and never steps past b, so no
// input makes it loop or grow without bound.
func parseDeviceRuns(s string) (DeviceIDs, error) {
	var ids DeviceIDs
	for i, run := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(run, "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		switch {
		case err1 != nil || err2 != nil || a < 0:
			return nil, &FormatError{Msg: fmt.Sprintf("device list %q: run %d, %q, is not N or N-M", s, i+1, run)}
		case b < a || (len(ids) > 0 && a <= ids[len(ids)-1]):
			return nil, &FormatError{Msg: fmt.Sprintf("device list %q: run %d, %q, does not increase", s, i+1, run)}
		case b-a >= placement.MaxDevices-len(ids):
			return nil, &FormatError{Msg: fmt.Sprintf("device list %q: run %d, %q, would make more than %d devices, the most a mesh holds", s, i+1, run, placement.MaxDevices)}
		}
		for k := 0; k <= b-a; k++ {
			ids = append(ids, a+k)
		}
	}
	return ids, nil
}

// increasing reports whether d is non-negative and strictly increasing: the lists the
// text form can say.
func increasing(d DeviceIDs) bool {
	for i, id := range d {
		if id < 0 || i > 0 && id <= d[i-1] {
			return false
		}
	}
	return true
}
