// Package validate checks a device dump against a reference array: what the
// `tpulayout validate` command computes, as a library.
//
// [Compare] takes the dump (a [buffer.Buffer] in the layout the device wrote, exactly its
// footprint) and the reference (any layout, the same dims) and returns a [Report]: how
// many elements match bit for bit or within a [Tolerance], the first mismatches with
// their logical index, byte offset, memory tile and vreg position (sublane, lane, slot)
// for the vregs of a TPU generation, the padding elements that are not zero (with
// [Options.CheckPadding]), and, when elements differ, the diagnosis of what the dump
// holds instead ([tpu.Diagnose]).
//
// The reference is compared in the dump's type: it is converted to it the way
// `tpulayout convert` converts ([buffer.ConvertElement]: floats round to nearest even,
// floats to integers truncate toward zero and saturate). Float errors are counted in
// units in the last place of that type; integer errors as integer differences.
//
// A Report marshals to the JSON object `tpulayout validate --json` prints, and its
// String method is the command's human report.
package validate
