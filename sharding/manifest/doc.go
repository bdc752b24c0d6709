// Package manifest is the record of a sharded conversion, manifest.json: its format,
// strict parsing, the merge of the partial manifests that the processes of a
// multi-host conversion write, and the checks of a merge.
//
// A Manifest names the source checkpoint and the target layout, the mesh, per device
// its coordinates and image files, and per tensor its spec, shard shape, layout and
// distinct shards: index ranges, devices, file, size and checksum (CRC32C by default,
// or SHA256). Parse reads one strictly: an unknown key, a key given twice, another
// format, a tensor listed twice or a shard whose checksum is not one well-formed sum
// of the manifest's algorithm is a *FormatError, never ignored. Marshal prints it
// with arrays and flat objects on one line; a mesh of over 64 devices leaves the
// per-device table out (Parse rebuilds it) and writes long runs of device ids as text
// ("0-1048575", see DeviceIDs).
//
// Merge joins the partial manifests in a Dir, an interface that a directory or a
// bucket prefix implements: they must agree on the conversion (a *MismatchError says
// where they do not), cover every device once, and list shard files that are there,
// of their sizes and checksums, where each tensor's spec puts them (CheckListed), and
// nothing else. PlacementReport is where the shards of one array go, in the
// manifest's words but without files.
//
// The package reads and writes only through the interfaces it is given. Its errors
// name the settings of a conversion by field ("To", "Process"), worded by Label in
// their Error; a command words them by its own flags through their Words methods
// (internal/errtext.Worded).
package manifest
