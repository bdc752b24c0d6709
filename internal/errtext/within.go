package errtext

import (
	"errors"
	"strings"
)

// Within words, in text (a message that quotes err's chain, such as a library's
// ErrorText of err, with "sharding: " prefixes dropped), the sentence of the first
// error of type E in err's chain by name: for a message around it that is not Worded
// itself and quotes it in its own words.
func Within[E Worded](err error, text string, name func(field string) string) string {
	var w E
	if !errors.As(err, &w) {
		return text
	}
	lib := strings.ReplaceAll(w.Error(), "sharding: ", "")
	ours := strings.ReplaceAll(Text(w, name), "sharding: ", "")
	return strings.Replace(text, lib, ours, 1)
}
