// Package sharding converts a checkpoint into per-device images for a TPU mesh, as
// jax.device_put with a jax.sharding.NamedSharding would place it.
//
// The model, mesh, PartitionSpec, rules and the JAX placement maths, is package
// placement; this package reads, converts and writes. PlaceTensor
// answers, from a conversion's options and without any data, where one tensor's
// shards would go (`tpulayout place`), as a PlacementReport in the manifest's words.
//
// A conversion (NewConversion, then Write; or Convert) writes each distinct shard's
// device image once, in the layout a target function gives for the shard's shape
// (such as the TPU default layout), gathered band by band from the source (a file
// mapped, or an object read by ranges) so that memory stays bounded; manifest.json
// (package manifest) lists per device its coordinates and files, and per tensor its
// spec, shard shape, layout and shards (index ranges, devices, file, size, checksum:
// CRC-32C by default, or SHA-256, as ConvertOptions.Checksum says). The job writes
// through one sink, as zip.Writer writes to an io.Writer: a directory or a bucket
// prefix (sink.go, opened by output.go, which also opens the reader that verify,
// gather and merge use), the manifest last. A conversion can be split over N processes as
// JAX multi-host splits devices (placement.Mesh.ProcessDevices); Merge joins their
// partial manifests in a directory (manifest.Merge) after checking the files they
// list (sizes and checksums), that every process read the same source
// (manifest.Source fingerprints) and that nothing else is in the directory. Verify
// re-reads the images and checks them against the manifest and the source; Gather
// reassembles the global arrays, checking each shard's file and placement first.
//
// Convert is all of it as `tpulayout convert --mesh` does it, from a ConvertOptions
// that names what the command's flags do (checkpoint and OUTDIR as paths or bucket
// URLs, mesh, spec or rules file or its text, target layout, pad): it checks the
// options, resolves each tensor's spec and layout (ResolveTarget, which is package
// convert's resolution of --to, hlo: targets included), writes, and returns a
// ConvertSummary. Its errors are *ConvertError (Setting marks wrong options, Field
// names the option, Err is the cause they unwrap to), whose Text a caller words by
// naming each field its own way; DevicesOption and ProcessOption read the text of
// Devices and Process.
// MergeOutdir, VerifyOutdir and GatherOutdir (or OpenOutdir and its GatherFile) are
// the command's manifest merge, verify and gather on a directory or bucket prefix; ConvertSummary and Report print themselves (WriteText).
//
// Manifests and rules files are read strictly (ReadManifest, ReadRules).
// Temporaries are held locked while written, so that a rerun after SIGKILL removes
// the stale ones of a killed run (see buffer.RemoveStaleTemps) and no others.
package sharding
