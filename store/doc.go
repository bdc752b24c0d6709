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
// A server that stops sending is not waited for: a try of a read (a stat, a
// listing, a byte range) that receives no byte for Retry.Stall fails with a
// StallError ("the server sent nothing for 20s"), and a read fails once
// Retry.StallTries of its tries stalled, its resumptions included; DefaultRetry's
// 20 s and 2 end a read from a server that stalls in about 41 s. Uploads, to which
// a server answers only at the end, are bounded by Retry.Timeout only.
// Retry.Notify is told of each failed try before it is made again (the command
// prints it on standard error).
//
// A ranged read checks the response's Content-Range against the request: its
// first and last byte and the object's size. Another range, a malformed one, or
// none for a range not at the start is a RangeError naming what was asked for and
// what the server said; another size is ErrChanged. Text a server sent (an error
// message, a header) reaches an error with its control characters escaped (\x1b).
//
// Attrs.CRC32C is the CRC-32C the service computed from an object's bytes: GCS's
// crc32c, S3's x-amz-checksum-crc32c (asked for with x-amz-checksum-mode; S3 and
// versitygw keep it for an upload that declared one, as PutFileCRC32C does). Unlike
// user metadata, which the uploader chose, it describes the bytes.
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
