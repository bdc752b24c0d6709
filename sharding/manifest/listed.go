package manifest

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/sharding/placement"
)

// CheckListed checks what a manifest says of one tensor's shards against what its spec
// gives on the mesh: the shard shape and the image layout's dims, the source dtype, and
// for each shard its index, devices, ranges, size and file name. The name is the
// conversion's (DIR/I_J.bin, DIR/shard.bin for a scalar) under one directory per
// tensor, returned: a hand-edited manifest that swaps two shards' files, or points
// outside the output, is an error rather than blocks gathered in the wrong place.
func CheckListed(mt *Tensor, pl *placement.Placement, dst layout.Shape) (dir string, err error) {
	if _, ok := layout.DTypeByName(mt.DType); !ok {
		return "", listedErr(mt, "dtype %q is not a dtype", mt.DType)
	}
	if !slices.Equal(mt.ShardShape, pl.ShardDims) {
		return "", listedErr(mt, "shard shape %v, but spec %s on the mesh gives %v", mt.ShardShape, pl.Spec, pl.ShardDims)
	}
	if !slices.Equal(dst.Dims, pl.ShardDims) {
		return "", listedErr(mt, "layout %s: its dims are not the shard's %v", mt.Layout, pl.ShardDims)
	}
	if len(mt.Shards) != len(pl.Shards) {
		return "", listedErr(mt, "%d shards listed, spec %s on the mesh gives %d", len(mt.Shards), pl.Spec, len(pl.Shards))
	}
	ix, err := layout.Compile(dst)
	if err != nil {
		return "", &FormatError{Tensor: mt.Name, Msg: "layout " + mt.Layout, Err: err}
	}
	for k := range mt.Shards {
		ms, s := &mt.Shards[k], &pl.Shards[k]
		if !slices.Equal(ms.Index, s.Index) || !slices.Equal(ms.Devices, s.Devices) || !slices.Equal(ms.Ranges, pl.Ranges(s)) {
			return "", listedErr(mt, "shard %s is listed at %v on devices %v, ranges %v; spec %s puts shard %v on devices %v, ranges %v",
				ms.File, ms.Index, ms.Devices, ms.Ranges, pl.Spec, s.Index, s.Devices, pl.Ranges(s))
		}
		d, base, ok := strings.Cut(ms.File, "/")
		if k == 0 {
			dir = d
		}
		if want := path.Base(ShardFile(dir, s.Index)); !ok || d != dir || base != want || !ValidDirName(d) {
			return "", listedErr(mt, "shard %v is in file %q, want %q: the manifest names another shard's file or a path outside the directory",
				ms.Index, ms.File, ShardFile(dir, s.Index))
		}
		if ms.Bytes != ix.FootprintBytes() {
			return "", listedErr(mt, "shard %s: %d bytes listed, layout %s needs %d", ms.File, ms.Bytes, mt.Layout, ix.FootprintBytes())
		}
	}
	return dir, nil
}

// ValidDirName reports whether d can be a tensor's directory: one path element, not
// hidden (temporaries are) and not a manifest's name.
func ValidDirName(d string) bool {
	return d != "" && !strings.ContainsAny(d, `/\`) && !strings.HasPrefix(d, ".") && !strings.HasPrefix(d, "manifest")
}

// ShardFile is the image file of the shard at index of a tensor written under dir:
// DIR/I_J.bin, or DIR/shard.bin for a scalar's one shard.
func ShardFile(dir string, index []int) string {
	if len(index) == 0 {
		return dir + "/shard.bin"
	}
	parts := make([]string, len(index))
	for i, x := range index {
		parts[i] = strconv.Itoa(x)
	}
	return dir + "/" + strings.Join(parts, "_") + ".bin"
}

// listedErr is a *FormatError of tensor mt.
func listedErr(mt *Tensor, format string, args ...any) error {
	return &FormatError{Tensor: mt.Name, Msg: fmt.Sprintf(format, args...)}
}
