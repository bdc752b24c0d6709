package convert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/report"
)

// shardedFormatPrefix starts the format of a sharded conversion's manifest
// (sharding.ManifestFormat, which a test checks): matched here by its text, so that
// this package does not import sharding and, through it, the object-store clients.
const shardedFormatPrefix = "tpulayout-sharded-"

// AllFormat names the format of the manifest All writes: Force replaces only a
// directory whose manifest carries it.
const AllFormat = "tpulayout-all-1"

// Manifest is the manifest.json of All: one entry per tensor.
type Manifest struct {
	Format  string  `json:"format"` // AllFormat; absent before it was added
	Source  string  `json:"source"`
	To      string  `json:"to"`
	Tensors []Entry `json:"tensors"`
}

// Entry is one tensor of an All conversion.
type Entry struct {
	Name        string  `json:"name"`
	SourceDType string  `json:"source_dtype"`
	SourceShape []int64 `json:"source_shape"`
	Layout      string  `json:"layout"`
	File        string  `json:"file"`
	Bytes       int64   `json:"bytes"`
}

// CheckOwned checks that the directory dir is one All wrote and that Force may
// therefore replace it (and its old tree be removed): its manifest.json is ours (our
// format, the All kind, every key known) and it holds nothing that manifest does not
// list. An All manifest from before the format key (source, to and tensors, nothing
// else) counts as ours. The error, a phrase after the directory's name, names the
// first foreign entry.
func CheckOwned(dir string) error { return names{}.checkOwned(dir) }

func (n names) checkOwned(dir string) error {
	mp := filepath.Join(dir, "manifest.json")
	st, err := os.Lstat(mp)
	if err != nil || !st.Mode().IsRegular() {
		return n.errf(Input, "has no manifest.json, the mark of an earlier {All}")
	}
	data, err := readText(mp, "manifest", MaxManifestBytes, "")
	if err != nil {
		return err
	}
	var probe struct {
		Format string `json:"format"`
	}
	json.Unmarshal(data, &probe) // a bad manifest fails below
	if strings.HasPrefix(probe.Format, shardedFormatPrefix) {
		return n.errf(Input, "is a sharded conversion's directory (format %s), not one of {All}", probe.Format)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil || (m.Format != AllFormat && m.Format != "") || m.Source == "" || m.To == "" || m.Tensors == nil {
		return n.errf(Input, "has a manifest.json that {All} did not write (format %q, want %q)", m.Format, AllFormat)
	}
	listed := map[string]bool{"manifest.json": true}
	for _, e := range m.Tensors {
		if e.File == "" || strings.ContainsAny(e.File, `/\`) || strings.HasPrefix(e.File, ".") {
			return n.errf(Input, "has a manifest.json that lists %q, which {All} does not write", e.File)
		}
		listed[e.File] = true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("cannot be read: %s", err)
	}
	var foreign []string
	for _, e := range ents {
		if !listed[e.Name()] || !e.Type().IsRegular() {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) > 0 {
		slices.Sort(foreign)
		return fmt.Errorf("holds %s, which its manifest.json does not list (%s)", NameText(foreign[0]), report.Plural(int64(len(foreign)), "foreign entry"))
	}
	return nil
}
