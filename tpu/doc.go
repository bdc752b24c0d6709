// Package tpu is the hardware's view of a device array: where a TPU expects each element,
// computed from the model in docs/tpu-model.md of this repository alone. It is the
// independent oracle the relayout engine is checked against, and it never calls that
// engine. Comments in this package cite that page's sections ("spec §2.1").
//
// # Overview
//
// A TPU TensorCore computes on vector registers (vregs) of Sublanes × Lanes 32-bit words,
// 8 × 128 on every generation through TPU7x. Values narrower than 32 bits are packed p =
// 32/b to a word: rows p·k … p·k+p−1 of one column share the word, the first row in the
// low bits. [Chip] describes each generation ([ChipOf], [Chips]); its [Target] is the
// vreg geometry, a parameter rather than a constant.
//
//   - [DefaultLayout] gives the tiling XLA and Mosaic pick for a dtype and shape on a
//     generation: f32 T(8,128), bf16 T(8,128)(2,1) or T(16,128)(2,1) from TPU7x, s8
//     T(8,128)(4,1) (T(32,128)(4,1) from TPU7x), s4 T(8,128)(8,1)E(4), compact tiles
//     for a small second-minor dim, the 1-D forms such as T(1024)(128)(2,1), and tiled
//     scalars such as s32[]{:T(128)}. [WithFlags] and [Scratch] override the inputs of
//     the rule ([TileRows]). [DefaultEvidence] says where the layouts XLA wrote in real
//     TPU HLO (testdata/tpu-defaults) back the answer and where it is a guess.
//   - [VregLayout] is Mosaic's VectorLayout: [VregLayout.Place] maps an element to
//     (vreg, sublane, lane, slot), [VregLayout.Element] maps back, and
//     [VregLayout.VregCount] counts vregs. [NativeLayout] is the dtype's native tiling.
//   - [MemTiling] is a memory layout that loads straight into vregs; [NewMemTiling]
//     enforces the load rules and names the broken one in a [*RuleError].
//     [MemTiling.Locate] gives an element's memory word and slot, [Load] fills vregs
//     from an image and [VregLayout.Unpack] takes one apart.
//   - [FootprintOf] counts bytes, padding, tiles and vregs, and whether an array fits a
//     chip's HBM or VMEM. [Alternatives] ranks the layouts of a dtype and dims on a
//     generation by footprint.
//   - [CheckBlock] checks a Pallas TPU block shape against the block rules, native-tile
//     alignment and the generation's VMEM, and suggests the nearest legal blocks.
//   - [Check] compares an image with a reference vreg by vreg and lists mismatches with
//     their logical index, byte offset, tile, vreg, sublane, lane and slot. [Diagnose]
//     names the arrangement a wrong image actually holds: no pair packing, rows r and
//     r+8 paired, another first tile, transposed, untiled, swapped halves, f32 for
//     bf16, or shifted by whole tiles; or the conversion mistake: truncation, f16 for
//     bf16 or the reverse, f32 high halves, byte-swapped elements, other NaN bits. It
//     names nothing on a tie, or when nothing explains more than the declared layout.
//
// # Inferred facts
//
// TPU8i and TPU8t rest on one source; TPU8t's 16 × 128 vreg is a hypothesis ([I] in
// docs/tpu-model.md). The default-layout table approximates compiler flags (spec §6). Byte order in
// memory is little-endian with the first row of a word in its low bits.
package tpu
