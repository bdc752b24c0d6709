// Package bucketurl tells an object-store URL from a local name, for packages store
// and convert alike: convert refuses the URLs that store reads, without importing
// store's clients.
package bucketurl

import "strings"

// Is reports whether name is an object-store URL (s3:// or gs://) rather than a
// local path or file:// URL.
func Is(name string) bool {
	s, _, ok := strings.Cut(name, "://")
	return ok && (s == "s3" || s == "gs")
}
