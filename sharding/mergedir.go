package sharding

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// Merge combines the partial manifests of the processes of a conversion in dir into
// manifest.json (see manifest.Merge), and returns the merged manifest.
func Merge(dir string) (*manifest.Manifest, error) { return MergeWith(dir, MergeOptions{}) }

// MergeOptions change what Merge checks.
type MergeOptions struct {
	// Quick skips re-hashing the shard files: their existence and sizes are still
	// checked (verify checks everything).
	Quick bool
	// Progress, when set, hears how far the check of the shard files has got.
	Progress Progress

	// files checks the listed shard files and finds unlisted ones where they are not
	// in the directory merged (a bucket prefix: see MergeURL); nil for the directory.
	files shardFiles
	// shown names the directory merged in messages, where that is a temporary copy
	// of another place (a bucket prefix's URL, ending in "/": see MergeURL); "" for
	// the directory itself.
	shown string
}

// shardFiles is where a merge looks for the shard files its manifests list.
type shardFiles interface {
	// check returns what is wrong with the listed file rel ("" if nothing).
	check(rel string, ms manifest.Shard, hash bool) string
	// unlisted returns the first file that listed does not hold ("" if none).
	unlisted(listed map[string]bool) string
	// has reports whether the file rel is there.
	has(rel string) bool
}

// MergeWith is Merge with options: manifest.Merge on the directory dir, whose stale
// temporaries of a killed run it removes (see buffer.RemoveStaleTemps).
func MergeWith(dir string, opt MergeOptions) (*manifest.Manifest, error) {
	d := mergeDir{path: dir, files: opt.files, shown: opt.shown}
	if d.files == nil {
		d.files = dirFiles(dir)
	}
	name := dir
	if d.shown != "" {
		name = d.shown
	}
	return manifest.Merge(name, d, manifest.MergeOptions{Quick: opt.Quick, Progress: opt.Progress})
}

// mergeDir is a directory as manifest.Merge reads and writes it; its shard files are
// files's. Messages name it shown, and a file in it shown+file, where shown is not "".
type mergeDir struct {
	path  string
	files shardFiles
	shown string
}

// Name is the file name at the top of d as messages name it.
func (d mergeDir) Name(name string) string {
	if d.shown != "" {
		return d.shown + name
	}
	return filepath.Join(d.path, name)
}

func (d mergeDir) Check(rel string, s manifest.Shard, hash bool) string {
	return d.files.check(rel, s, hash)
}

func (d mergeDir) Unlisted(listed map[string]bool) string { return d.files.unlisted(listed) }

func (d mergeDir) Has(rel string) bool { return d.files.has(rel) }

func (d mergeDir) List() ([]string, error) {
	ents, err := os.ReadDir(d.path)
	if err != nil {
		if d.shown != "" {
			err = showPath(err, d.shown)
		}
		return nil, err
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	return names, nil
}

func (d mergeDir) ReadFile(name string) ([]byte, error) {
	return readLimitedAs(filepath.Join(d.path, name), d.Name(name), "manifest", manifest.MaxBytes)
}

func (d mergeDir) WriteFile(name string, data []byte) error {
	return d.shownErr(name, buffer.WriteFileAtomic(filepath.Join(d.path, name), func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}))
}

func (d mergeDir) Remove(name string) error {
	return d.shownErr(name, os.Remove(filepath.Join(d.path, name)))
}

// shownErr is err, of an operation on the file name at the top of d, naming the file
// as messages name it (see showPath) where d is shown by another name.
func (d mergeDir) shownErr(name string, err error) error {
	if err == nil || d.shown == "" {
		return err
	}
	return showPath(err, d.Name(name))
}

// dirFiles is a directory's shard files.
type dirFiles string

func (d dirFiles) check(rel string, ms manifest.Shard, hash bool) string {
	return checkShardFile(filepath.Join(string(d), rel), ms, hash)
}

func (d dirFiles) unlisted(listed map[string]bool) string { return unlisted(string(d), listed) }

func (d dirFiles) has(rel string) bool {
	_, err := os.Stat(filepath.Join(string(d), rel))
	return err == nil
}

// checkShardFile checks one listed image file's size and, with hash, its checksum; it
// returns what is wrong ("").
func checkShardFile(path string, ms manifest.Shard, hash bool) string {
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
	h := ms.NewHash()
	if _, err := io.Copy(h, f); err != nil {
		return err.Error()
	}
	if msg := ms.SumDiffers(h); msg != "" {
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
