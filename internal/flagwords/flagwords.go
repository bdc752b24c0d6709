// Package flagwords names the fields of the libraries' options as tpulayout's command
// line names them (its flags and arguments), for the command's messages and the
// Python package's, which print what the command prints.
package flagwords

// shard are sharding.ConvertOptions' fields by their command-line words.
var shard = map[string]string{
	"Checkpoint": "IN", "Out": "OUTDIR", "Mesh": "--mesh", "Devices": "--devices", "Spec": "--spec",
	"Rules": "--rules", "To": "--to", "DType": "--dtype", "Tensor": "--tensor", "All": "--all",
	"Process": "--process", "Pad": "--pad", "Checksum": "--checksum", "Force": "--force",
}

// Shard is the command line's word for field, a field of sharding.ConvertOptions
// (sharding.Fields): Mesh is --mesh, Out is OUTDIR. Any other field is itself.
func Shard(field string) string {
	if w, ok := shard[field]; ok {
		return w
	}
	return field
}
