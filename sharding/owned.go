package sharding

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// OwnedError is a directory that Force may not replace: Err says why, as a phrase
// after the directory's name.
type OwnedError struct {
	Dir string
	Err error
}

func (e *OwnedError) Error() string { return "sharding: " + e.Words(nil, nil) }

func (e *OwnedError) Unwrap() error { return e.Err }

// Words is the error with the option it names (Force) named by name (nil: Force).
func (e *OwnedError) Words(name func(field string) string, _ func(error) string) string {
	return fmt.Sprintf("%s replaces only a directory that a sharded conversion wrote, and OUTDIR %s %v", fieldName(name, "Force"), e.Dir, e.Err)
}

// NotEmptyError is a directory OUTDIR that holds files, which a conversion without
// Force does not write into.
type NotEmptyError struct{ Dir string }

func (e *NotEmptyError) Error() string { return "sharding: " + e.Words(nil, nil) }

// Words is the error with the option it names (Force) named by name (nil: Force).
func (e *NotEmptyError) Words(name func(field string) string, _ func(error) string) string {
	return fmt.Sprintf("%s is not empty; the output goes into a new or empty directory (%s replaces one that a sharded conversion wrote)", e.Dir, fieldName(name, "Force"))
}

// fieldName is name(field), or field for a nil name.
func fieldName(name func(field string) string, field string) string {
	if name == nil {
		return field
	}
	return name(field)
}

// CheckOwned checks that dir is the directory of a sharded conversion, which Force may
// therefore replace (and its old tree be removed): its manifest.json is a sharded
// conversion's (read strictly, see ParseManifest), and every entry in it is the
// manifest, a tensor's directory or a shard file that the manifest lists, each of its
// kind (a directory, a regular file). The error, a phrase after the directory's name,
// names the first entry that is not.
func CheckOwned(dir string) error {
	mp := filepath.Join(dir, manifest.FileName)
	if st, err := os.Lstat(mp); err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("has no %s, the mark of a sharded conversion", manifest.FileName)
	}
	data, err := readLimited(mp, "manifest", manifest.MaxBytes)
	var m *manifest.Manifest
	if err == nil {
		m, err = manifest.Parse(data)
	}
	if err != nil {
		return fmt.Errorf("has a %s that a sharded conversion did not write: %w", manifest.FileName, err)
	}
	listed := map[string]bool{manifest.FileName: true}
	dirs := map[string]bool{}
	for _, t := range m.Tensors {
		for _, s := range t.Shards {
			d, f, ok := strings.Cut(s.File, "/")
			if s.File == "" || path.Clean(s.File) != s.File || !filepath.IsLocal(filepath.FromSlash(s.File)) || strings.Contains(f, "/") || s.File == manifest.FileName {
				return fmt.Errorf("has a %s that lists %q, which a sharded conversion does not write", manifest.FileName, s.File)
			}
			listed[s.File] = true
			if ok {
				listed[d], dirs[d] = true, true
			}
		}
	}
	foreign := unlistedFiles(dir, listed, false)
	for rel := range listed { // each of its kind: a shard file's place may hold a directory
		st, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel)))
		if err == nil && (dirs[rel] && !st.IsDir() || !dirs[rel] && !st.Mode().IsRegular()) {
			foreign = append(foreign, rel)
		}
	}
	if len(foreign) > 0 {
		first := foreign[0]
		for _, f := range foreign {
			first = min(first, f)
		}
		return fmt.Errorf("holds %s, which its %s does not list (%s)", convert.NameText(first), manifest.FileName, report.Plural(int64(len(foreign)), "foreign entry"))
	}
	return nil
}
