package main

import "strings"

// storeReason is the reason of a failed read of name (a path or a bucket URL)
// without the store's prefix and name repeated: "cannot read IN s3://b/k: object
// does not exist", not "…: store: s3://b/k: object does not exist". Other objects
// an error names (an index's files) keep their URLs.
func storeReason(name string, err error) string {
	s := libErr(err)
	s = strings.TrimPrefix(s, "store: "+name+": ")
	return strings.ReplaceAll(s, "store: ", "")
}
