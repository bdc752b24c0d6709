package sharding

import (
	"github.com/tpulayout/tpulayout/sharding/placement"
	"strconv"
	"strings"
)

// The sharded conversion's options that come as text (a command line's flags, a
// Python caller's strings).

// DevicesOption reads the text of Devices, the device ids in row-major order of the mesh, such
// as "0,1,2,3", for ConvertOptions.Devices. Its error is a Setting *ConvertError.
func DevicesOption(text string) ([]int, error) {
	ids, err := placement.ParseDevices(text)
	if err != nil {
		return nil, settingErr("Devices", err)
	}
	return ids, nil
}

// ProcessOption reads the text I/N of Process, process I of N (JAX's multi-host split), for
// ConvertOptions.Process and Processes. Its error is a Setting *ConvertError.
func ProcessOption(text string) (i, n int, err error) {
	a, b, ok := strings.Cut(text, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, usage("bad {Process} %q: want I/N with 0 ≤ I < N, such as 0/4", text)
	}
	return i, n, nil
}
