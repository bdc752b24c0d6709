package sharding

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/sharding/internal/strictjson"
)

// ckptIndex is a sharded checkpoint's index (model.safetensors.index.json, a file or
// an object): the tensors its "weight_map" maps to each file beside it.
type ckptIndex struct {
	name   string              // the index's path or URL, as errors name it
	files  []string            // the files it names, sorted, relative to it
	byFile map[string][]string // the tensors of each file
}

// parseIndex parses the index name holds data of. A tensor mapped twice would
// silently take the last file, so duplicate keys are refused; other keys
// ("metadata") are the index's own and stay allowed. A file must be a name beside the
// index: not empty, not absolute, without ".." or a backslash.
func parseIndex(name string, data []byte) (*ckptIndex, error) {
	var idx struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("sharding: index %s is not valid JSON: %w", name, err)
	}
	if err := strictjson.CheckDuplicateKeys(data); err != nil {
		return nil, fmt.Errorf("sharding: index %s: %w", name, err)
	}
	if len(idx.WeightMap) == 0 {
		return nil, fmt.Errorf("sharding: index %s has no \"weight_map\" (tensor name → file)", name)
	}
	ix := &ckptIndex{name: name, byFile: map[string][]string{}}
	for t, f := range idx.WeightMap {
		if f == "" || strings.HasPrefix(f, "/") || filepath.IsAbs(f) || strings.Contains(filepath.ToSlash(f), "..") || strings.Contains(f, "\\") {
			return nil, fmt.Errorf("sharding: index %s maps tensor %q to %q, which is not a file name beside it", name, t, f)
		}
		ix.byFile[f] = append(ix.byFile[f], t)
	}
	ix.files = slices.Sorted(mapKeys(ix.byFile))
	return ix, nil
}

// add appends to c the tensors the index maps to file f, which sf holds.
func (ix *ckptIndex) add(c *Checkpoint, f string, sf *safetensors.File) error {
	for _, name := range ix.byFile[f] {
		t, ok := sf.Tensor(name)
		if !ok {
			return fmt.Errorf("sharding: index %s maps tensor %q to %s, which does not hold it", ix.name, name, f)
		}
		c.Tensors = append(c.Tensors, TensorEntry{t, sf})
	}
	return nil
}
