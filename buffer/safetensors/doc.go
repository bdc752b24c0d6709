// Package safetensors reads and writes safetensors files as [buffer.Buffer] values:
// [Open] reads and validates the header (tensors, dtypes, offsets, "__metadata__"),
// [File.Read] and [ReadTensor] read one tensor row-major (mapped read-only from
// [buffer.MmapThreshold] bytes; call Close on the buffer), [Write] writes tensors
// atomically, and [HeaderFor] gives the header alone for callers that stream the data.
// Errors from user input never panic; they name the tensor and wrap [buffer.ErrFormat],
// [buffer.ErrDType] or [buffer.ErrNotFound].
package safetensors
