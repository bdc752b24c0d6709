// Command tpulayout inspects XLA array shapes with tiled layouts, written in XLA's text
// form such as 'bf16[256,1024]{1,0:T(8,128)(2,1)}': how big their buffers are, where
// each element lives, and what the layout looks like as a grid.
//
// Usage:
//
//	tpulayout example DIR
//	tpulayout info SHAPE [--to tpu:GEN] [--gen GEN] [--json]
//	tpulayout explain SHAPE INDEX [--json]
//	tpulayout explain SHAPE --offset N [--json]
//	tpulayout show SHAPE [--svg FILE] [--rows A:B] [--cols C:D] [--max N] [--max-slices N]
//	tpulayout convert IN OUT [--to SHAPE|LAYOUT|DTYPE|tpu:GEN] [--from SHAPE] [--dtype T] [--tensor NAME] [--all] [--pad zero|leave|VALUE] [--progress] [--view T] [--force]
//	tpulayout convert CKPT OUTDIR --mesh AXIS=N,… --spec SPEC|--rules FILE --to tpu:GEN|LAYOUT [--dtype T] [--all|--tensor NAME] [--devices IDS] [--process I/N]
//	tpulayout validate DUMP --layout SHAPE --ref REF [--tensor NAME] [--ref-shape SHAPE] [--tol ulp=N,abs=X,rel=X] [--check-padding] [--gen GEN] [--max N] [--json] [--progress] [--view T]
//	tpulayout hlo MODULE.txt [--all] [--sort padding] [--to tpu:GEN] [--json]
//	tpulayout blockspec --array SHAPE --block B0,B1,... [--gen GEN] [--operands N] [--json]
//	tpulayout verify OUTDIR [--source CKPT]
//	tpulayout gather OUTDIR OUT.safetensors
//	tpulayout manifest merge OUTDIR
//	tpulayout version
//	tpulayout completion bash|zsh
//	tpulayout help [VERB]
//
// Example writes the small inputs the README's walkthrough uses (a .npy array, a
// three-tensor safetensors checkpoint, a buggy device dump, an HLO module, sharding
// rules), the same bytes on every machine. Flags may come before or after the
// arguments; "--" ends the flags; help and errors write them --name, and a mistyped flag
// or verb gets the nearest one. Quote SHAPE for the
// shell. Index math follows the layout package: nested tiling, each tile applying to the
// minor dims of the shape the previous one produced, with offsets row-major over the
// final expanded shape (see [github.com/tpulayout/tpulayout/layout.Indexer]).
//
// # info
//
// Info prints the element type and storage width (E(n), or the type's storage width),
// the dims, minor_to_major and the physical order it gives, the tiles, the expanded shape
// after every stage (physical, combined when the first tile has '*', then one per tile),
// the logical and footprint sizes in elements and bytes, and how much of the footprint
// is padding. With --json it prints one object with the keys shape, dtype, dims,
// minor_to_major, physical_order, tiles, tail_padding (when L(n) is set), levels,
// element_bits, logical_elements, logical_bytes, footprint_elements, footprint_bytes,
// padding_elements and padding_fraction. In tiles a combined dim is the string "*".
//
// # explain
//
// Explain SHAPE INDEX takes a logical index such as 2,3 or (2,3) (for a scalar, an empty
// argument or ()) and prints the element offset, the byte offset (and, for element widths
// that are not a whole number of bytes, the bit offset and which bits of the byte), the
// physical index, and at every tile level the index of the element's tile and its index
// within the tile.
// For example 'f32[3,5]{1,0:T(2,2)}' 2,3 is at element offset 17, byte 68.
//
// Explain SHAPE --offset N goes the other way: it prints the logical element at element
// offset N, or says that N is padding and which tile level padded which dim (or that it
// is tail padding from L(n)). N must lie inside the footprint.
//
// With --json explain prints one object with the keys shape, index (absent for padding),
// padding, offset (in elements), byte_offset, bit_offset, bit_in_byte, element_bits,
// physical_index, expanded_index, expanded_dims, levels (tile, tile_index, tile_counts and
// within_tile for each tile) and, for padding, tail_padding and reason.
//
// # show
//
// Show prints the element offset of every logical element as an aligned grid, rows
// being the second-minor logical dim and columns the minor one, like this for
// 'f32[3,5]{1,0:T(2,2)}':
//
//	 0  1  4  5  8
//	 2  3  6  7 10
//	12 13 16 17 20
//
// Arrays of rank 3 and more print one grid per 2-D slice under a header such as [1,:,:];
// rank 0 and 1 print a single row. A header line names the shape and a footer the
// footprint and its padding. Show refuses slices of more than 64 rows or columns and more
// than 16 slices; --max and --max-slices raise the limits, and --rows A:B --cols C:D
// show a window of a large array (rows A up to but not including B).
//
// With --svg FILE show also draws the figure: one cell per logical element with its offset
// written in, coloured by its first-level tile, the padding that edge tiles add past the
// array hatched, and a note of the footprint's padding. The file is written to a temporary
// file in the same directory and renamed into place, so a failure leaves no file. FILE '-'
// writes the SVG to stdout in place of the grid.
//
// # hlo and blockspec
//
// Hlo lists an HLO module dump's entry parameters and results (or with --all every
// instruction) with layout, bytes and padding expansion; blockspec checks a Pallas TPU
// block shape and its VMEM cost. 'tpulayout help hlo' and 'tpulayout help blockspec'
// give the details. Every SHAPE argument may also be a pasted HLO instruction line, a
// tuple shape followed by ' {N}' to pick an element, or hlo:MODULE.txt:param=N (or
// result=N).
//
// # Sharded conversion
//
// Convert with --mesh writes, for every device of a mesh, its shard of each tensor of a
// safetensors checkpoint in the device layout, as jax.sharding.NamedSharding places it,
// with a manifest (see package [github.com/tpulayout/tpulayout/sharding]); verify
// checks such a directory against its source, gather reassembles the global arrays, and
// manifest merge joins the partial manifests of a conversion split with --process.
//
// # Exit status
//
// 0 on success; 2 on bad usage or input (a malformed shape, with the byte where parsing
// failed, a bad index or offset, an unknown flag or verb, missing or extra arguments,
// a grid over the limits), with one line on stderr naming the problem and nothing on
// stdout; 1 when validate finds mismatches or blockspec an illegal block (the report goes to stdout); 130 when
// stopped by SIGINT, SIGTERM, SIGHUP or SIGQUIT, after removing the temporary output of
// a convert in progress, so that OUT is left as it was and nothing is left beside it;
// 141, silently and after the same cleanup, when stdout or stderr is a pipe whose
// reader has gone (0 once OUT is complete and in place: only progress or the report of
// OUT is lost then, as in 'convert … --progress 2>&1 | head -1'). Errors and panics remove it too, and an IN truncated while convert reads it is an
// error naming IN.
//
// # Output files
//
// Convert's OUT and show's --svg FILE are written to a temporary file in their directory
// and renamed into place. A symlink is replaced at its target and stays a link (so is
// the directory of convert --all). '-', /dev/stdout, /dev/fd/N, a character device or a
// FIFO is written in place, as a stream, with no temporary file; convert then prints
// nothing else on stdout. An empty OUT, or --all into a file or a stream, is a usage
// error before any work.
package main
