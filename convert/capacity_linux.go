//go:build linux

package convert

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// SystemMemory is MemAvailable plus SwapFree from /proc/meminfo: what a new allocation
// can fill without the kernel killing something.
func SystemMemory() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var total int64
	found := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != "MemAvailable" && name != "SwapFree" {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, false
		}
		total += kb << 10
		found = found || name == "MemAvailable"
	}
	return total, found
}

// SystemFreeDisk is the space an unprivileged user may still write in dir's file system.
func SystemFreeDisk(dir string) (int64, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false
	}
	free := uint64(st.Bavail) * uint64(st.Bsize)
	if free > 1<<62 {
		free = 1 << 62
	}
	return int64(free), true
}
