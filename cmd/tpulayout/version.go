package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

var versionVerb = &verb{
	name:     "version",
	synopsis: "",
	summary:  "the module version and VCS revision of this build (also --version)",
	detail: `Version prints the module version and the VCS revision, commit time and whether
the tree had uncommitted changes, as the Go toolchain recorded them in the binary, and
the Go version and platform it was built with. 'go build' in a git checkout records
the revision; 'go run', -buildvcs=false and a linked git worktree (golang.org/issue/58218)
do not.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos); err != nil {
				return err
			}
			return writeVersion(w)
		}
	},
}

// readBuildInfo is debug.ReadBuildInfo; tests replace it.
var readBuildInfo = debug.ReadBuildInfo

// writeVersion prints what the binary knows of its own build.
func writeVersion(w io.Writer) error {
	bi, ok := readBuildInfo()
	if !ok {
		_, err := fmt.Fprintf(w, "tpulayout (unknown version: built without module support)\ngo:       %s %s/%s\n",
			runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return err
	}
	set := map[string]string{}
	for _, s := range bi.Settings {
		set[s.Key] = s.Value
	}
	rev := "unknown (none recorded: go run, -buildvcs=false and builds in a linked git worktree record none)"
	if r := set["vcs.revision"]; r != "" {
		rev = r
		if t := set["vcs.time"]; t != "" {
			rev += ", committed " + t
		}
		if set["vcs.modified"] == "true" {
			rev += ", with uncommitted changes"
		}
	}
	goVersion := bi.GoVersion
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	_, err := fmt.Fprintf(w, "tpulayout %s\nmodule:   %s %s\nrevision: %s\ngo:       %s %s/%s\n",
		version, bi.Main.Path, version, rev, goVersion, runtime.GOOS, runtime.GOARCH)
	return err
}
