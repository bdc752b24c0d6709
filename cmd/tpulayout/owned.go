package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/sharding"
)

// allFormat names the format of the manifest convert --all writes: --force replaces
// only a directory whose manifest carries it.
const allFormat = "tpulayout-all-1"

// checkOwned checks that the directory dir is one --all wrote and that --force may
// therefore replace it (and its old tree be removed): its manifest.json is ours (our
// format, the --all kind, every key known) and it holds nothing that manifest does not
// list. An --all manifest from before the format key (source, to and tensors, nothing
// else) counts as ours. The error names the first foreign entry.
func checkOwned(dir string) error {
	mp := filepath.Join(dir, "manifest.json")
	st, err := os.Lstat(mp)
	if err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("has no manifest.json, the mark of an earlier --all")
	}
	data, err := readTextFile(mp, "manifest", maxManifestBytes)
	if err != nil {
		return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "cannot read "))
	}
	var probe struct {
		Format string `json:"format"`
	}
	json.Unmarshal(data, &probe) // a bad manifest fails below
	if probe.Format == sharding.ManifestFormat {
		return fmt.Errorf("is a sharded conversion's directory (format %s), not one of --all", probe.Format)
	}
	var m manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil || (m.Format != allFormat && m.Format != "") || m.Source == "" || m.To == "" || m.Tensors == nil {
		return fmt.Errorf("has a manifest.json that --all did not write (format %q, want %q)", m.Format, allFormat)
	}
	listed := map[string]bool{"manifest.json": true}
	for _, e := range m.Tensors {
		if e.File == "" || strings.ContainsAny(e.File, `/\`) || strings.HasPrefix(e.File, ".") {
			return fmt.Errorf("has a manifest.json that lists %q, which --all does not write", e.File)
		}
		listed[e.File] = true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("cannot be read: %s", fileErr(err))
	}
	var foreign []string
	for _, e := range ents {
		if !listed[e.Name()] || !e.Type().IsRegular() {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) > 0 {
		slices.Sort(foreign)
		return fmt.Errorf("holds %s, which its manifest.json does not list (%s)", nameText(foreign[0]), plural(int64(len(foreign)), "foreign entry"))
	}
	return nil
}
