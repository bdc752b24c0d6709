//go:build cgo

package main

/*
#include <string.h>

// tl_memcpy is C's memcpy of n bytes, called from Go so that it is timed like copy().
static void tl_memcpy(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
*/
import "C"

import "unsafe"

func init() { cMemcpy = memcpyC }

// memcpyC copies src into dst (len(dst) >= len(src)) with the C library's memcpy. The
// slices hold no Go pointers, so C may read and write them for the call's duration.
func memcpyC(dst, src []byte) {
	if len(src) == 0 {
		return
	}
	_ = dst[len(src)-1]
	C.tl_memcpy(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), C.size_t(len(src)))
}
