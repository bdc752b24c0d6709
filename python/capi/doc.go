// Command capi is the C ABI of tpulayout for the Python package: built with
// `go build -buildmode=c-shared` into libtpulayout.so and loaded with ctypes. The
// exported functions (exports.go, cgo builds only) are thin wrappers over the Go code
// in this directory, which takes and returns Go values so that it is tested without cgo.
//
// Conventions across the boundary: buffers are a pointer and a length in bytes, read or
// written only during the call (Go never keeps them); results are JSON or C strings
// that the caller frees with tl_free; plans are cgo.Handle values; an error is a JSON
// object {"kind", "msg", "pos", "input"} in a C string, kind one of "layout" (a malformed shape
// or layout string, pos its byte position), "shape" (shapes that do not match),
// "size" (a buffer of the wrong size), "value" (any other bad input) or "internal" (a
// recovered panic: a bug, reported instead of crashing the interpreter).
package main
