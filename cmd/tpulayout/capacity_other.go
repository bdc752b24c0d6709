//go:build !linux

package main

// Elsewhere memory and disk space are not checked in advance.
func systemMemory() (int64, bool)             { return 0, false }
func systemFreeDisk(dir string) (int64, bool) { return 0, false }
