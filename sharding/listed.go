package sharding

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/sharding/placement"
)

// checkListed checks what a manifest says of one tensor's shards against what its spec
// gives on the mesh: the shard shape and the image layout's dims, the source dtype, and
// for each shard its index, devices, ranges, size and file name. The name is the
// conversion's (DIR/I_J.bin, DIR/shard.bin for a scalar) under one directory per
// tensor, returned: a hand-edited manifest that swaps two shards' files, or points
// outside the output, is an error rather than blocks gathered in the wrong place.
func checkListed(mt *ManifestTensor, pl *placement.Placement, dst layout.Shape) (dir string, err error) {
	if _, ok := layout.DTypeByName(mt.DType); !ok {
		return "", fmt.Errorf("dtype %q is not a dtype", mt.DType)
	}
	if !slices.Equal(mt.ShardShape, pl.ShardDims) {
		return "", fmt.Errorf("shard shape %v, but spec %s on the mesh gives %v", mt.ShardShape, pl.Spec, pl.ShardDims)
	}
	if !slices.Equal(dst.Dims, pl.ShardDims) {
		return "", fmt.Errorf("layout %s: its dims are not the shard's %v", mt.Layout, pl.ShardDims)
	}
	if len(mt.Shards) != len(pl.Shards) {
		return "", fmt.Errorf("%d shards listed, spec %s on the mesh gives %d", len(mt.Shards), pl.Spec, len(pl.Shards))
	}
	ix, err := layout.Compile(dst)
	if err != nil {
		return "", fmt.Errorf("layout %s: %w", mt.Layout, err)
	}
	for k := range mt.Shards {
		ms, s := &mt.Shards[k], &pl.Shards[k]
		if !slices.Equal(ms.Index, s.Index) || !slices.Equal(ms.Devices, s.Devices) || !slices.Equal(ms.Ranges, pl.Ranges(s)) {
			return "", fmt.Errorf("shard %s is listed at %v on devices %v, ranges %v; spec %s puts shard %v on devices %v, ranges %v",
				ms.File, ms.Index, ms.Devices, ms.Ranges, pl.Spec, s.Index, s.Devices, pl.Ranges(s))
		}
		d, base, ok := strings.Cut(ms.File, "/")
		if k == 0 {
			dir = d
		}
		if want := path.Base(shardFile(dir, s)); !ok || d != dir || base != want || !validDirName(d) {
			return "", fmt.Errorf("shard %v is in file %q, want %q: the manifest names another shard's file or a path outside the directory",
				ms.Index, ms.File, shardFile(dir, s))
		}
		if ms.Bytes != ix.FootprintBytes() {
			return "", fmt.Errorf("shard %s: %d bytes listed, layout %s needs %d", ms.File, ms.Bytes, mt.Layout, ix.FootprintBytes())
		}
	}
	return dir, nil
}

// validDirName reports whether d can be a tensor's directory: one path element, not
// hidden (temporaries are) and not a manifest's name.
func validDirName(d string) bool {
	return d != "" && !strings.ContainsAny(d, `/\`) && !strings.HasPrefix(d, ".") && !strings.HasPrefix(d, "manifest")
}
