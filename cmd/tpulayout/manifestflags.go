package main

import (
	"errors"
	"strings"

	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// manifestFlag names a setting that package manifest's errors name by field (see
// manifest.Label) by the flag that sets it.
func manifestFlag(field string) string {
	switch field {
	case "to":
		return "--to"
	case "Process":
		return "--process I/N"
	}
	return manifest.Label(field)
}

// withManifestFlags rewrites text, the message of err, so that the settings that
// package manifest's errors in err's chain name by field are named by their flags.
func withManifestFlags(err error, text string) string {
	var me *manifest.MismatchError
	if errors.As(err, &me) {
		for _, d := range me.Diffs {
			if lib, cli := d.Text(manifest.Label), d.Text(manifestFlag); lib != cli {
				text = strings.Replace(text, lib, cli, 1)
			}
		}
	}
	var ce *manifest.ConflictError
	if errors.As(err, &ce) && ce.Err == nil {
		lib, cli := ce.Diff.Field+" is ", manifestFlag(ce.Diff.Field)+" is "
		text = strings.Replace(text, ": "+lib+ce.Diff.Theirs+" there", ": "+cli+ce.Diff.Theirs+" there", 1)
	}
	var np *manifest.NoPartialsError
	if errors.As(err, &np) {
		text = strings.Replace(text, "written by "+manifest.Label("Process"), "written by "+manifestFlag("Process"), 1)
	}
	return text
}
