package sharding

import (
	"os"

	"golang.org/x/sys/unix"
)

// removeUnopened removes the file at path when it is a regular file of this user
// that no process has open. The proof is a write lease (fcntl F_SETLEASE), which
// Linux grants only to the file's owner and only while no other descriptor of the
// file is open; the file is removed while the lease is held.
func removeUnopened(path string) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Getuid() {
		return
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_WRLCK); err != nil {
		return // open elsewhere, or leases are not to be had here
	}
	os.Remove(path)
	unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_UNLCK)
}
