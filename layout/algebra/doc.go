// Package algebra is CuTe's layout algebra on int64 layouts, and the reading of XLA
// tiled layouts (package layout) as CuTe layouts. The design note behind it is
// ../shared/spec/layout-algebra.md of the project; docs/algebra.md has worked examples.
//
// # Layouts
//
// A [Layout] is Shape:Stride, two [IntTuple]s of the same nesting, e.g.
// ((8,2),(128,2)):((128,2048),(1,1024)). It maps a coordinate to an offset: a 1-D
// coordinate is split colexicographically (first mode fastest), and the offset is the
// sum of coordinate × stride. [New] and [Parse] check that shapes are ≥ 1, strides ≥ 0,
// and that the size and the cosize fit int64; every operation checks its own arithmetic
// and returns an error wrapping [ErrOverflow] rather than a wrapped-around number. No
// function of the package panics on bad input except [MustNew].
//
// # Operations
//
//   - [Coalesce], [CoalesceByMode]: the same map with the fewest modes.
//   - [Compose](a, b): a ∘ b. CuTe's implementations check only the stride condition and
//     can return a layout that disagrees with the composed maps; Compose checks the
//     stride and the shape divisibility conditions (and, when a has several modes, that
//     b's modes below the last mode of Coalesce(a) reach disjoint offset ranges) and
//     returns a [*DivisibilityError] wrapping [ErrNotComposable] instead.
//   - [Complement](l, cotarget): the offsets below cotarget that l does not reach.
//   - [RightInverse], [LeftInverse]: offset → coordinate.
//   - [LogicalDivide], [LogicalDivideModes], [ZippedDivide], [TiledDivide]: a layout cut
//     by a tile (or one tile per mode); [Runs] says in how many contiguous runs a tile's
//     offsets lie.
//   - [LogicalProduct], [BlockedProduct], [RakedProduct]: a block repeated by a pattern.
//   - [MaxCommonVector], [MaxCommonLayout]: the longest run of coordinates contiguous in
//     both layouts.
//   - [Upcast], [Downcast]: the same layout counted in units of n elements, or back.
//
// # XLA layouts
//
// [FromXLA] reads an array shape with its layout (minor_to_major, tiles with `*`, E(n),
// L(n)) as a [Mapping]: one CuTe layout per logical index when the tiles cut every index
// digit exactly ([Mapping.One], mode k = dim k, possibly on a domain padded up to
// [Mapping.Extents]), and always the exact chain of levels ([Mapping.Chain]: physical
// order, then per tile its padding and its reorder). Offsets are in elements of
// [Mapping.ElementBits] bits; [Mapping.Alloc] is the allocation in elements.
// [Mapping.Offset] agrees element by element with layout's [layout.Indexer.Offset];
// [Mapping.Index] is the inverse (or padding); [Mapping.Canonical] is the form two
// layouts share when they place every element alike; [Mapping.Padding] is where the
// padding sits; [Mapping.Words] is the 32-bit word view of packed types.
package algebra
