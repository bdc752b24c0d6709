// Package store reads and writes checkpoints where they live: in an S3 or
// S3-compatible bucket (s3://bucket/key), a Google Cloud Storage bucket
// (gs://bucket/key), or a local file (file:///path or a plain path).
//
// Open parses a URL and returns the Bucket that holds it and the key inside it.
// A Bucket reads byte ranges of an object (ReadAt, Object), writes whole objects
// (Put, which a reader never sees half-written), lists a prefix and deletes what
// its caller wrote. Reads are retried with exponential backoff on 5xx responses,
// timeouts and dropped connections; a read cut off after half of its bytes (or
// 1 MiB) resumes after them, its tries afresh. After the last try the error names
// the object and the byte range.
//
// Credentials come only from the standard chains, never from flags, and are never
// printed: for S3, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN),
// the shared credentials file (AWS_SHARED_CREDENTIALS_FILE, AWS_PROFILE), then the
// instance or container role (IMDS, ECS, web identity); for GCS, Application Default
// Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's file, the metadata server).
// AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL) points s3:// at an S3-compatible store,
// with path-style requests; AWS_REGION (or AWS_DEFAULT_REGION) sets the region.
// STORAGE_EMULATOR_HOST points gs:// at a GCS emulator, unauthenticated, as Google's
// own client libraries do.
package store
