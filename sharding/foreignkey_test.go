package sharding

import (
	"strings"
	"testing"
	"unicode"

	"github.com/tpulayout/tpulayout/store/storetest"
)

// TestForeignKeyEscaped: a prefix holding an object this conversion did not write
// stops it with a message naming the object; a key with control characters (a
// terminal escape) is printed escaped (\x1b), as the store's errors print what a
// server sent.
func TestForeignKeyEscaped(t *testing.T) {
	for _, srv := range storetest.All(t) {
		t.Run(srv.Name(), func(t *testing.T) {
			srv.Point(t, srv.Endpoint)
			if srv.Fake == nil {
				t.Skip("the key is put through the fake")
			}
			bucket := srv.NewBucket(t)
			srv.Fake.Put(bucket, "out/\x1b[31mred\x1b[0m.bin", []byte("x"), nil)
			_, err := Convert(ConvertOptions{Checkpoint: "../testdata/sharding/rows_x4.safetensors",
				Out: srv.Scheme + "://" + bucket + "/out", Mesh: "x=4", Spec: `P("x")`, To: "tpu:v5e"})
			if err == nil {
				t.Fatal("converted into a prefix holding another's object")
			}
			msg := err.Error()
			if strings.ContainsFunc(msg, unicode.IsControl) || !strings.Contains(msg, "object(s) this conversion did not write") {
				t.Fatalf("%q: want the key escaped", msg)
			}
			if srv.Scheme == "gs" && !strings.Contains(msg, `\x1b[31mred\x1b[0m.bin`) {
				t.Fatalf("%q: want the key escaped as \\x1b", msg)
			}
		})
	}
}
