// Package npy reads and writes NumPy's .npy files as [buffer.Buffer] values, with its
// own code: header versions 1.0–3.0 (the header's Python dict literal is parsed here,
// not evaluated), C and Fortran order, little- and big-endian data, and bf16 as '<V2'
// (what NumPy writes for ml_dtypes' bfloat16) or, with [BF16AsU2], '<u2'.
//
// [Read] maps data of at least [buffer.MmapThreshold] bytes read-only (call Close on
// the buffer); [Write] is atomic ([buffer.WriteFileAtomic]); [HeaderFor] gives the
// header alone for callers that stream the data themselves. Errors from user input
// never panic; they wrap [buffer.ErrFormat], [buffer.ErrSize] or [buffer.ErrDType].
package npy
