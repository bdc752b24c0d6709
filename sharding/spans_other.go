//go:build !unix

package sharding

// mapSpan is nil where anonymous mappings are not used: the buffers are the heap's.
func mapSpan(int64) []byte { return nil }

func unmapSpan([]byte) {}
