// Package relayout copies arrays between any two XLA memory layouts, bit-exact and near
// memory bandwidth: plan once with [NewPlan], then [Plan.Copy] as often as needed.
// docs/relayout.md in this repository explains plans at length, and
// docs/layout-semantics.md the layouts they move between.
//
// # How a plan works
//
// Each side's layout is compiled (package layout) to digits: every dim of the final
// expanded shape is a mixed-radix digit of one logical dim, with a stride. NewPlan reads
// each digit as a place interval of its logical dim, merges both sides' place values into
// one common decomposition (where they nest: each divides the next), and so sees both
// buffers as strided views of a single iteration space. It orders the loops by
// destination stride (sequential writes), fuses what is contiguous on both sides, and
// picks the innermost kernel from package simd:
//
//   - copy: runs contiguous on both sides (with fused f32↔bf16/f16 conversion; other
//     type pairs convert whole runs with buffer.Converter);
//   - interleave / deinterleave: the (2,1) and (4,1) packing of 16- and 8-bit types, as
//     in T(8,128)(2,1), fused with f32→bf16/f16 or bf16→f32 conversion; other type
//     pairs convert the rows in a per-worker scratch block and pack them there (or
//     unpack there and convert);
//   - transpose: the two sides' fastest dims differ; cache-sized block transposes of
//     elements, or of units of up to 4 bytes that are contiguous on both sides (bf16
//     {1,0} → {0,1:T(8,128)(2,1)} packs columns adjacent in the source: 32-bit units);
//     converting ones go through a per-worker scratch block (convert, then transpose, or
//     the reverse for widening pairs such as bf16 pairs to f32);
//   - elementwise: anything else.
//
// Sub-byte elements (E(4), E(2), E(1)) are unpacked to one a byte, planned as 8-bit
// elements of the same layouts without E(n) (which changes no offset), and packed back;
// such a plan keeps byte arrays for its copies.
//
// The innermost outer loop goes to the kernel as a batch of rows (simd.Rows), one call
// per batch; when both arrays fit in L2 it is the largest loop. When source and
// destination together take half the last-level cache (at most 48 MiB counted for each
// logical CPU: virtual machines report their host's), every kernel stores non-temporally
// (no read of each line before it is written) and each worker fences once at the end;
// plain transposes do so from four L2 caches of destination on. A copy takes a worker
// for each four L2 caches it moves, and a plan for several workers cuts its loops (a
// single run between identical layouts included) into about 8 units a worker, none
// under 256 KiB. A [Wisdom] file measured on the machine replaces each of these sizes.
//
// Blocks that reach past the array (sizes that are not tile multiples) take a bounded
// edge path that copies the data prefix and pads the rest. A dim whose tiles do not nest
// (T(8,128) → T(6,128): row r is (r/8, r%8) on one side, (r/6, r%6) on the other) is
// walked value by value, outermost, through tables of its offsets on both sides, while
// the other dims keep their kernel; the destination's padding is then written first.
// A pair whose direct kernel would move 16 bytes or less per call, while the two halves
// through a row-major array of the source's type do better, runs as those two passes
// (pair packing along different dims on the two sides: a deinterleave, then a transpose
// of pairs); such a plan keeps one row-major array for its copies.
// Combined dims `*` plan as the equivalent plain tile when the merged tile splits over the
// merged dims (T(2,*,128) on a minor dim of 512 is T(2,1,128)); other combined layouts
// take a per-element path through the layouts' index math.
//
// So a plan runs one of four ways, which [Plan.Kernel] and [Plan.String] name: its loop
// nest with an inner kernel, two passes through a row-major array, sub-byte elements on
// bytes, or the per-element path.
//
// # Guarantees
//
// Results equal the per-element formula of package layout, byte for byte, padding
// included (tests check thousands of random layout pairs against it for every SIMD
// implementation). Destination padding is written in the same pass (first, for plans
// with table loops): zeros unless [WithPadLeave] or [WithPadValue] say otherwise; source
// padding is never read. A Plan is immutable and safe for concurrent Copy calls, and
// Copy does not allocate (buffers that converting transposes and packings and two-pass
// plans need are made by NewPlan): parallel copies ([WithWorkers]) run on a pool of long-lived
// goroutines, each worker on a disjoint destination range. A panic in a worker's range,
// or a memory fault in any range (such as reading a mapped source whose file was
// truncated, which Copy and the workers turn into a panic with
// [runtime/debug.SetPanicOnFault], the calling goroutine's own range included), is
// raised again in the goroutine that called Copy once every range has stopped, so that
// the caller can recover it (its value has an Addr method) instead of the process
// dying of SIGBUS.
//
// # Bands
//
// A conversion too large to hold twice in memory runs in bands: [PlanBands] splits it
// along the destination's majormost dim into contiguous destination byte ranges, each
// read from a contiguous source range or gathered from a row-major source, and
// [Bands.Run] converts them one after another through one reusable buffer (releasing the
// consumed pages of a mapped source). The bands' bytes equal one Copy of the whole array.
package relayout
