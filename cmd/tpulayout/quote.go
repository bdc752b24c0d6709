package main

import "fmt"

// maxMessage bounds an error line. Each site quotes its bad input through layout.Quote
// (about 200 bytes); this is the backstop for sites that quote whole strings, so that
// no input of any size is echoed in full.
const maxMessage = 1000

// clampMessage shortens s to about maxMessage bytes, keeping its start and end.
func clampMessage(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	h, t := maxMessage*3/5, len(s)-maxMessage/4
	for h > 0 && s[h]&0xc0 == 0x80 { // not inside a UTF-8 sequence
		h--
	}
	for t < len(s) && s[t]&0xc0 == 0x80 {
		t++
	}
	return fmt.Sprintf("%s …[%d bytes left out]… %s", s[:h], t-h, s[t:])
}
