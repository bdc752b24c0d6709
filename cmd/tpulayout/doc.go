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
//	tpulayout place SHAPE --mesh MESH --spec SPEC|--rules FILE [--tensor NAME] [--devices IDS] [--json]
//	tpulayout cute SHAPE [--words] [--json]
//	tpulayout whereis SHAPE --byte N|--element N [--json]
//	tpulayout equal A B [--json]
//	tpulayout copymap SRC DST [--json]
//	tpulayout blocks SHAPE --block B0,B1,... [--json]
//	tpulayout padding SHAPE [--json]
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
// 'tpulayout help VERB' prints each verb's details, --json keys among them (this page
// does not repeat them, so that the two cannot disagree). Every SHAPE argument may also
// be a pasted HLO instruction line, a tuple shape followed by ' {N}' to pick an
// element, or hlo:MODULE.txt:param=N (or result=N). Each verb is a call of the
// library: convert.Job and convert.Check, the reports of package report (info,
// explain, show's grid, hlo, blockspec), package layout/algebra (cute, whereis, equal,
// copymap, blocks, padding) and package sharding's Convert and OUTDIR verbs;
// the command adds flags, printing and exit statuses.
//
// # Sharded conversion
//
// Convert with --mesh writes, for every device of a mesh, its shard of each tensor of a
// safetensors checkpoint in the device layout, as jax.sharding.NamedSharding places it,
// with a manifest (see package [github.com/tpulayout/tpulayout/sharding]); verify
// checks such a directory against its source, gather reassembles the global arrays, and
// manifest merge joins the partial manifests of a conversion split with --process.
// Place says, without converting, which device would hold which ranges of a tensor.
//
// # Exit status
//
// 0 on success; 2 on bad usage or input (a malformed shape, with the byte where parsing
// failed, a bad index or offset, an unknown flag or verb, missing or extra arguments,
// a grid over the limits), with one line on stderr naming the problem and nothing on
// stdout; 1 when validate finds mismatches, blockspec an illegal block, equal a
// difference or blocks a misaligned block (the report goes to stdout); 130 when
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
