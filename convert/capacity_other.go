//go:build !linux

package convert

// Elsewhere memory and disk space are not checked in advance.

// SystemMemory is unknown here.
func SystemMemory() (int64, bool) { return 0, false }

// SystemFreeDisk is unknown here.
func SystemFreeDisk(dir string) (int64, bool) { return 0, false }
