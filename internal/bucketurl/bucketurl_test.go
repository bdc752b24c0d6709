package bucketurl

import "testing"

func TestIs(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"s3://b/k", true},
		{"gs://b/", true},
		{"gs://", true},
		{"file:///tmp/x", false},
		{"http://h/x", false},
		{"S3://b/k", false},
		{"s3:/b/k", false},
		{"dir/s3://x", false},
		{"model.safetensors", false},
		{"", false},
	} {
		if got := Is(c.name); got != c.want {
			t.Errorf("Is(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}
