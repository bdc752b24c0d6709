package testfiles

import (
	"bytes"
	"context"
	"testing"

	"github.com/tpulayout/tpulayout/store"
)

// PutObject puts data into the object at url (s3:// or gs://, its scheme pointed at
// a server), replacing any there; it fails the test on an error.
func PutObject(t testing.TB, url string, data []byte) {
	t.Helper()
	ctx := context.Background()
	b, key, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Put(ctx, key, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Fatal(err)
	}
}
