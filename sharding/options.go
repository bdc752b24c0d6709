package sharding

import (
	"github.com/tpulayout/tpulayout/sharding/placement"
	"strconv"
	"strings"
)

// The sharded conversion's options that come as text (a command line's flags, a
// Python caller's strings), read with the messages `tpulayout convert --mesh` gives.

// DevicesOption reads --devices, the device ids in row-major order of the mesh, such
// as "0,1,2,3", for ConvertOptions.Devices. Its error is a usage *ConvertError.
func DevicesOption(text string) ([]int, error) {
	ids, err := placement.ParseDevices(text)
	if err != nil {
		return nil, &ConvertError{Usage: true, Msg: "--devices", Err: err}
	}
	return ids, nil
}

// ProcessOption reads --process I/N, process I of N (JAX's multi-host split), for
// ConvertOptions.Process and Processes. Its error is a usage *ConvertError.
func ProcessOption(text string) (i, n int, err error) {
	a, b, ok := strings.Cut(text, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, usage("bad --process %q: want I/N with 0 ≤ I < N, such as 0/4", text)
	}
	return i, n, nil
}
