package main

import (
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/sharding"
)

// cleanup lets an interrupt remove what the library's OUTDIR verbs leave (a bucket's
// local copy), as convert's temporary output.
var cleanup = sharding.Cleanup{Hold: convert.HoldTemps, Track: convert.TrackHeld, Untrack: convert.Untrack}
