package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// storeEnv are the variables a bucket scenario reads: the servers .ci/store.sh starts
// and their test credentials.
var storeEnv = []string{"TPULAYOUT_TEST_S3", "TPULAYOUT_TEST_GCS", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
	"AWS_REGION", "AWS_EC2_METADATA_DISABLED"}

// TestStoreScript runs the scenarios of testdata/store, which TestScript's commands
// tpulayout and status run against the object stores of .ci/store.sh; a scenario
// skips, by the conditions [s3] and [gcs], where its server's variable
// (TPULAYOUT_TEST_S3, TPULAYOUT_TEST_GCS) is unset.
func TestStoreScript(t *testing.T) {
	env := map[string]string{}
	for _, v := range storeEnv {
		env[v] = os.Getenv(v)
	}
	p := scriptParams(t, "store", env, nil)
	p.Condition = func(cond string) (bool, error) { // [s3], [gcs]: that server is up
		switch cond {
		case "s3":
			return os.Getenv("TPULAYOUT_TEST_S3") != "", nil
		case "gcs":
			return os.Getenv("TPULAYOUT_TEST_GCS") != "", nil
		}
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	testscript.Run(t, p)
}
