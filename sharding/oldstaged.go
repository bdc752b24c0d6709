package sharding

import (
	"os"
	"path/filepath"
)

// Earlier versions staged a bucket conversion's images straight in $TMPDIR, as
// tpulayout-shard-NNN.bin (stagedPattern), each open in its process until uploaded,
// then removed, with no lock beside it; a killed process left them. cleanOldStaged
// removes those that are provably dead: named so, regular files of this user, and
// open in no process (see unopened). Where that cannot be proven it leaves them.
func cleanOldStaged(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.Type().IsRegular() && stagedRE.MatchString(e.Name()) {
			removeUnopened(filepath.Join(dir, e.Name()))
		}
	}
}
