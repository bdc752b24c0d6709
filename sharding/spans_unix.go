//go:build unix

package sharding

import "golang.org/x/sys/unix"

// mapSpan returns n bytes of anonymous memory outside the Go heap, or nil if the
// system refuses: the read buffers there do not count towards the garbage
// collector's goal, which would otherwise let the heap's garbage grow to their size.
func mapSpan(n int64) []byte {
	b, err := unix.Mmap(-1, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	return b
}

// unmapSpan gives back what mapSpan returned; nothing may use it afterwards.
func unmapSpan(b []byte) { unix.Munmap(b) }
