//go:build !linux

package convert

// exchange is not available here: replaceDir renames the old tree aside instead.
func exchange(a, b string) error { return errNoExchange }
