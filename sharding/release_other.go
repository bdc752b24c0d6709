//go:build !linux

package sharding

// releasePages is a no-op where files are not mapped with madvise.
func releasePages([]byte) {}
