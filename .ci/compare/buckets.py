#!/usr/bin/env python3
"""buckets.py reset|dump|put FILE KEY: the test buckets "tpulayout" of .ci/store.sh
--exec (S3 at AWS_ENDPOINT_URL_S3, GCS at STORAGE_EMULATOR_HOST). reset deletes every
object of both; put uploads FILE as KEY to both (a checkpoint to read from them); dump
prints each object's key, size, SHA-256 of its bytes and its user metadata, sorted, so
that compare.sh compares what each binary left in the buckets."""
import hashlib, json, os, subprocess, sys, urllib.parse, urllib.request
import xml.etree.ElementTree as ET

S3, GCS, B = os.environ["AWS_ENDPOINT_URL_S3"], os.environ["STORAGE_EMULATOR_HOST"], "tpulayout"

def s3(method, path, headers=False, data=None):
    cmd = ["curl", "-sf", "-X", method, S3 + path, "--aws-sigv4", "aws:amz:us-east-1:s3",
           "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD",
           "--user", os.environ["AWS_ACCESS_KEY_ID"] + ":" + os.environ["AWS_SECRET_ACCESS_KEY"]]
    if headers:
        cmd.append("-D-")
    if data:
        cmd += ["--data-binary", "@" + data]
    return subprocess.run(cmd, check=True, capture_output=True).stdout

def s3_keys():
    keys, token = [], None
    while True:
        q = "?list-type=2" + ("&continuation-token=" + urllib.parse.quote(token, safe="") if token else "")
        root = ET.fromstring(s3("GET", "/" + B + q))
        ns = root.tag.split("}")[0] + "}" if root.tag.startswith("{") else ""
        keys += [c.find(ns + "Key").text for c in root.findall(ns + "Contents")]
        t = root.find(ns + "NextContinuationToken")
        if t is None:
            return keys
        token = t.text

def gcs(path, method="GET"):
    req = urllib.request.Request(GCS + path, method=method)
    with urllib.request.urlopen(req) as r:
        return r.read()

def gcs_objects():
    return json.loads(gcs("/storage/v1/b/%s/o" % B)).get("items", [])

def q(key):
    return urllib.parse.quote(key, safe="")

if sys.argv[1] == "reset":
    for k in s3_keys():
        s3("DELETE", "/%s/%s" % (B, urllib.parse.quote(k)))
    for o in gcs_objects():
        gcs("/storage/v1/b/%s/o/%s" % (B, q(o["name"])), "DELETE")
elif sys.argv[1] == "put":
    s3("PUT", "/%s/%s" % (B, urllib.parse.quote(sys.argv[3])), data=sys.argv[2])
    with open(sys.argv[2], "rb") as f:
        req = urllib.request.Request(GCS + "/upload/storage/v1/b/%s/o?uploadType=media&name=%s" % (B, q(sys.argv[3])), data=f.read(), method="POST")
    urllib.request.urlopen(req).read()
else:
    for k in sorted(s3_keys()):
        raw = s3("GET", "/%s/%s" % (B, urllib.parse.quote(k)), headers=True)
        head, _, body = raw.partition(b"\r\n\r\n")
        meta = sorted(l.decode().lower() for l in head.split(b"\r\n") if l.lower().startswith(b"x-amz-meta-"))
        print("s3", k, len(body), hashlib.sha256(body).hexdigest(), " ".join(meta))
    for o in sorted(gcs_objects(), key=lambda o: o["name"]):
        body = gcs("/storage/v1/b/%s/o/%s?alt=media" % (B, q(o["name"])))
        print("gs", o["name"], o["size"], hashlib.sha256(body).hexdigest(), o.get("crc32c"), json.dumps(o.get("metadata", {}), sort_keys=True))
