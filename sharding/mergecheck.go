package sharding

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/sharding/placement"
)

// checkMergedFiles checks the merged manifest m against the directory (see MergeWith):
// placements, every listed file's size and checksum, and no file that no manifest
// lists. parts are the partial manifests' names.
func checkMergedFiles(dir string, m *Manifest, opt MergeOptions, parts map[int]string) error {
	mesh, err := placement.NewMesh(m.Mesh.Axes, m.Mesh.Sizes, m.Mesh.Devices)
	if err != nil {
		return fmt.Errorf("sharding: the partial manifests' mesh: %w", err)
	}
	files := opt.files
	if files == nil {
		files = dirFiles(dir)
	}
	listed := map[string]bool{}
	for _, p := range parts {
		listed[p] = true
	}
	prog := orNone(opt.Progress)
	prog.Total(shardBytes(m))
	for i := range m.Tensors {
		mt := &m.Tensors[i]
		dst, err := layout.Parse(mt.Layout)
		if err != nil {
			return fmt.Errorf("sharding: tensor %q: layout %s: %w", mt.Name, mt.Layout, err)
		}
		spec, err := placement.ParseSpec(mt.Spec)
		if err != nil {
			return fmt.Errorf("sharding: tensor %q: %w", mt.Name, err)
		}
		pl, err := placement.Place(mesh, spec, mt.Shape)
		if err != nil {
			return fmt.Errorf("sharding: tensor %q: %w", mt.Name, err)
		}
		d, err := checkListed(mt, pl, dst)
		if err != nil {
			return fmt.Errorf("sharding: tensor %q: %w", mt.Name, err)
		}
		if listed[d] {
			return fmt.Errorf("sharding: two tensors list files in %s/", d)
		}
		listed[d] = true
		for _, ms := range mt.Shards {
			listed[ms.File] = true
			if msg := files.check(ms.File, ms, !opt.Quick); msg != "" {
				return fmt.Errorf("sharding: tensor %q: shard file %s %s", mt.Name, ms.File, msg)
			}
			prog.Add(ms.Bytes)
		}
	}
	if f := files.unlisted(listed); f != "" {
		return fmt.Errorf("sharding: %s holds %s, which no partial manifest lists: a file of another conversion, or one being written; remove it", dir, f)
	}
	return nil
}

// checkShardFile checks one listed image file's size and, with hash, its checksum; it
// returns what is wrong ("").
func checkShardFile(path string, ms ManifestShard, hash bool) string {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return "is missing"
		}
		return err.Error()
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err.Error()
	}
	if !st.Mode().IsRegular() {
		return "is not a regular file"
	}
	if st.Size() != ms.Bytes {
		return fmt.Sprintf("has %d bytes, the manifest says %d", st.Size(), ms.Bytes)
	}
	if !hash {
		return ""
	}
	h := ms.newHash()
	if _, err := io.Copy(h, f); err != nil {
		return err.Error()
	}
	if msg := ms.sumDiffers(h); msg != "" {
		return "has " + msg
	}
	return ""
}

// unlisted removes the stale temporaries in dir and its subdirectories (a killed
// run's; see buffer.RemoveStaleTemps) and returns the first other entry that listed
// does not hold ("" if none).
func unlisted(dir string, listed map[string]bool) string {
	if f := unlistedFiles(dir, listed, true); len(f) > 0 {
		return f[0]
	}
	return ""
}

// unlistedFiles returns the entries of dir and of its listed subdirectories, by slash
// path relative to dir, that listed does not hold, sorted. listed holds files and the
// tensors' directories. With removeStale, stale temporaries are removed first.
func unlistedFiles(dir string, listed map[string]bool, removeStale bool) []string {
	var found []string
	walk := func(rel string) []string {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if removeStale {
			buffer.RemoveStaleTempsIn(p)
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil // a missing listed file is reported as such
		}
		var subs []string
		for _, e := range ents {
			r := e.Name()
			if rel != "" {
				r = rel + "/" + e.Name()
			}
			switch {
			case !listed[r]:
				found = append(found, r)
			case e.IsDir():
				subs = append(subs, r)
			}
		}
		return subs
	}
	for _, sub := range walk("") {
		walk(sub)
	}
	sort.Strings(found)
	return found
}
