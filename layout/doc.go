// Package layout implements XLA shapes and layouts: the text form, validation, and the
// exact index math of tiled layouts that every other tpulayout package is tested against.
//
// # Layout strings
//
// A shape such as `bf16[256,1024]{1,0:T(8,128)(2,1)}` is an element type, dims, and a
// layout: minor_to_major, then attributes in XLA's fixed order — a sparse array's
// dim-level types D(…), tiles T(…)(…), tail padding L(n), the sparse index and pointer
// types #(t) and *(t), element size E(n), memory space S(n), split configs SC(…),
// physical shape P(…) and prefix bytes M(n). A sparse layout has no index math
// ([ErrSparse]); [DescribeSparse] says what it means.
// [Parse] reads it (tuples `(a, b)` and buffers `b(…)` too), validates it at parse time,
// and reports errors as a [*ParseError] naming the byte position. [Shape.String] prints
// the canonical form; parse → print → parse is the identity.
//
// # Index math
//
// [Compile] turns a shape into an [Indexer]: [Indexer.Offset] maps a logical index to its
// element offset under nested tiling (each tile applies to the shape the previous one
// produced), [Indexer.Index] inverts it or reports padding, and [Indexer.FootprintBytes]
// gives the true size with every level's padding and L(n). [Indexer.RowBlocks] says in
// which contiguous runs a row-major host array maps onto the layout. Sub-byte types with E(n) pack
// elements least-significant bits first in tiled order ([Indexer.BitOffset]).
//
// Where XLA crashes or disagrees with itself, this package follows the decisions in
// docs/layout-semantics.md of this repository (comments cite them as "spec Part 1 §n",
// decision n): invalid layouts are errors, a tile with more dims than the shape reads
// missing dims as size 1, and footprints are the nested ones (XLA's ArraySize uses the
// first tile only). That page also lists the test vectors this package is checked on.
//
// Parse also rejects what no buffer could hold, so that every tool agrees on what a
// layout string means: E(n) must be the type's width on types of 8 bits or more, and 1,
// 2, 4 or 8 bits (at least the type's) on sub-byte types and pred; the footprint must fit
// int64 counted in bits; the tiles may expand the shape to at most 64 dims.
package layout
