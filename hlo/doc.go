// Package hlo reads XLA HLO module text, as written by --xla_dump_to (before or after
// optimizations) or printed by HloModule::ToString, far enough to list every
// instruction's shape and layout.
//
// # Grammar
//
// A module is `HloModule name` with optional `, key=value` attributes (such as
// entry_computation_layout={(…)->…}, kept in [Module.EntryLayout]), then computations;
// as in XLA, the HloModule line may be left out. A computation is
// `[ENTRY] name [(p: shape, …) -> shape] { instructions }`, optionally followed by
// `, execution_thread="…"`. An instruction is
//
//	[ROOT] name = shape opcode(operands), attr=value, …
//
// where a name may start with '%', the shape may be left out for the opcodes XLA
// infers it for (tuple, get-tuple-element, elementwise ops, …; see
// [Instruction.Inferred] and [Instruction.NoShape]), a shape is an array such as
// `bf16[8,128]{1,0:T(8,128)(2,1)S(1)}` or a tuple `(s32[], f32[8]{0}, /*index=2*/ …)`,
// and attribute values (metadata={…}, sharding={devices=[2,1]0,1},
// frontend_attributes={…}, backend_config="…" or {…}) are kept as raw text. Values and
// operands may span lines inside brackets, and a value may start on the line after
// its '='; /*…*/ and // comments are skipped. As in
// XLA, a module with no ENTRY computation takes its last one as the entry, and a
// computation with no ROOT takes its last instruction as the root.
//
// # Errors
//
// [Parse] never panics on malformed input: it returns a [*SyntaxError] with the line
// and column where the text went wrong (a truncated file, a missing '=', a bad shape,
// an unbalanced bracket, a repeated ENTRY or ROOT). As XLA's parser, it also refuses an
// operand or called computation not defined before its use, a parameter number used
// twice or numbers with a gap, text after an attribute's value, a module without an
// HloModule line that starts otherwise than with ENTRY or `name {`, and a sparse
// layout's physical shape P(…), which newer XLA no longer reads. An opcode XLA does not
// define is not an error: the instruction is kept with [Instruction.Known] false, so
// dumps from newer compilers still list their shapes (`X-start`, `X-update` and
// `X-done` of an opcode X are async wrappers, known). Parsing takes time and memory
// linear in the text.
package hlo
