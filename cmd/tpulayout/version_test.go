package main

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func fakeBuildInfo(t *testing.T, bi *debug.BuildInfo) {
	saved := readBuildInfo
	readBuildInfo = func() (*debug.BuildInfo, bool) { return bi, bi != nil }
	t.Cleanup(func() { readBuildInfo = saved })
}

// TestVersion prints fake build information: with VCS information, without (go run),
// and none at all. (The real binary's, and the usage error, are
// testdata/script/version.txt.)
func TestVersion(t *testing.T) {
	fakeBuildInfo(t, &debug.BuildInfo{
		GoVersion: "go1.26.0",
		Main:      debug.Module{Path: "github.com/tpulayout/tpulayout", Version: "v0.0.0-20261124214512-ceedc6d5e0f1+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "ceedc6d5e0f1a2b3c4d5e6f708192a3b4c5d6e7f"},
			{Key: "vcs.time", Value: "2026-11-24T21:45:12Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	})
	want := "tpulayout v0.0.0-20261124214512-ceedc6d5e0f1+dirty\n" +
		"module:   github.com/tpulayout/tpulayout v0.0.0-20261124214512-ceedc6d5e0f1+dirty\n" +
		"revision: ceedc6d5e0f1a2b3c4d5e6f708192a3b4c5d6e7f, committed 2026-11-24T21:45:12Z, with uncommitted changes\n" +
		"go:       go1.26.0 " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		if got := mustRun(t, args...); got != want {
			t.Errorf("tpulayout %s:\n%s\nwant\n%s", args[0], got, want)
		}
	}

	// A build without VCS information (go run) says so, and one without module
	// information at all still prints the Go version.
	fakeBuildInfo(t, &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/tpulayout/tpulayout", Version: "(devel)"}})
	platform := " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	want = "tpulayout (devel)\n" +
		"module:   github.com/tpulayout/tpulayout (devel)\n" +
		"revision: unknown (none recorded: go run, -buildvcs=false and builds in a linked git worktree record none)\n" +
		"go:       go1.26.0" + platform
	if got := mustRun(t, "version"); got != want {
		t.Errorf("version without VCS information:\n%s", got)
	}
	fakeBuildInfo(t, nil)
	want = "tpulayout (unknown version: built without module support)\n" +
		"go:       " + runtime.Version() + platform
	if got := mustRun(t, "version"); got != want {
		t.Errorf("version without build information:\n%s", got)
	}
}
