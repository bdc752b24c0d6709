//go:build !linux

package main

// exchange is not available here: replaceDir renames the old tree aside instead.
func exchange(a, b string) error { return errNoExchange }
