package main

import (
	"fmt"
	"io"
	"os"
)

// Size limits of the text files the command reads whole (an HLO module, a --all
// manifest). Far above real files (the largest HLO dumps of big models are tens of
// MB); low enough that /dev/zero, a FIFO that never ends or a checkpoint named by
// mistake fails at once instead of filling memory. The rules file and the sharded
// manifests have their own (sharding.MaxRulesBytes, sharding.MaxManifestBytes).
const (
	maxModuleBytes   = 256 << 20
	maxManifestBytes = 64 << 20
)

// readTextFile reads the file at path whole, at most limit bytes: what names it in
// errors ("MODULE"), as "cannot read MODULE PATH: …".
func readTextFile(path, what string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s %s: %s", what, path, fileErr(err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s %s: %s", what, path, fileErr(err))
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("cannot read %s %s: it is larger than the limit of %s for a text file", what, path, sizeText(limit))
	}
	return b, nil
}
