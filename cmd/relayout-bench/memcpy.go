package main

// cMemcpy is C's memcpy, set by memcpy_cgo.go when the command is built with cgo (a C
// compiler present and CGO_ENABLED not 0), and nil otherwise: then the fastest copy is
// the faster of Go's copy() and the non-temporal copy.
var cMemcpy func(dst, src []byte)

// noMemcpyLine is said once on stderr by a run built without cgo.
const noMemcpyLine = "relayout-bench: C's memcpy is not built in (built without cgo: no C compiler, or CGO_ENABLED=0); the fastest copy is the faster of Go's copy() and the non-temporal copy\n"
