// Package placement is the model of a sharded array, as JAX has it: where the pieces of
// an array go on a mesh of devices under a PartitionSpec, as jax.device_put with a
// jax.sharding.NamedSharding would place them. It reads and writes nothing.
//
// A Mesh names its axes and sizes and lays device ids over them in row-major order
// (the last axis varies fastest). A Spec is a PartitionSpec: for each leading dim of
// an array, the mesh axes that shard it (a tuple shards one dim over several axes,
// the first majormost); dims past its end and mesh axes it does not name are not
// sharded, so devices that differ only in unnamed axes hold the same shard (a
// replica). Place works out the shards of an array: along dim d the array is cut into
// the product of its axes' sizes, which must divide the dim (as JAX requires), and
// device at mesh coordinates c holds, along d, piece number c[a1]·size(a2)·… + … +
// c[ak] for the dim's axes a1 … ak. These are the slices that JAX's
// devices_indices_map gives; testdata/sharding/gen.py checks them independently with
// NumPy, and the tests hold them to 718 placements recorded from JAX itself
// (testdata/jax). A dim its axes do not divide is an *IndivisibleError.
//
// Rules pick a spec per tensor by its name (ParseRules reads a rules file's text,
// strictly: an unknown key or a key given twice is an error). Mesh.ProcessDevices
// splits the devices between the processes of a multi-host run as JAX does.
//
// Errors are values with fields: *SyntaxError (text that is not a mesh, device list
// or spec), *MeshError, *SpecError, *RulesError, *UnmatchedError and
// *IndivisibleError. They name the mesh, the spec or the rule, never an option of a
// command line; a caller that takes them as settings says which.
package placement
