//go:build unix && !linux

package buffer

func adviseHuge([]byte) {}

func dropPages([]byte) {}
