package edgetext

import (
	"errors"
	"strings"

	"github.com/tpulayout/tpulayout/internal/errtext"
)

// Within words, in text (a message that quotes err's chain, such as shardtext's
// wording of err, with "sharding: " prefixes dropped), the sentence of each Worded
// error in err's chain by name, where the message around it is not Worded itself.
func Within(err error, text string, name func(field string) string) string {
	for e := err; e != nil; e = errors.Unwrap(e) {
		w, ok := e.(errtext.Worded)
		if !ok {
			continue
		}
		lib := strings.ReplaceAll(w.Error(), "sharding: ", "")
		ours := strings.ReplaceAll(Text(w, name), "sharding: ", "")
		text = strings.Replace(text, lib, ours, 1)
	}
	return text
}
