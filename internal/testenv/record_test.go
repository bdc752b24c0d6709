package testenv

import (
	"slices"
	"testing"
)

func TestRecord(t *testing.T) {
	for _, c := range []struct {
		name    string
		f       func(tb testing.TB)
		errs    []string
		stopped bool
	}{
		{"passes", func(tb testing.TB) { tb.Helper(); tb.Log("a line") }, nil, false},
		{"errors go on", func(tb testing.TB) { tb.Error("a", 1); tb.Errorf("b%d", 2) }, []string{"a1", "b2"}, false},
		{"Fatal stops", func(tb testing.TB) { tb.Fatal("x"); tb.Error("not reached") }, []string{"x"}, true},
		{"Fatalf stops", func(tb testing.TB) { tb.Fatalf("y%d", 3); tb.Error("not reached") }, []string{"y3"}, true},
		{"FailNow stops", func(tb testing.TB) { tb.FailNow(); tb.Error("not reached") }, nil, true},
		{"Skip stops", func(tb testing.TB) { tb.Skip("why"); tb.Error("not reached") }, nil, true},
		{"Skipf stops", func(tb testing.TB) { tb.Skipf("why %d", 1); tb.Error("not reached") }, nil, true},
		{"SkipNow stops", func(tb testing.TB) { tb.SkipNow(); tb.Error("not reached") }, nil, true},
	} {
		errs, stopped := Record(t, c.f)
		if !slices.Equal(errs, c.errs) || stopped != c.stopped {
			t.Errorf("%s: recorded %q, stopped %v; want %q, %v", c.name, errs, stopped, c.errs, c.stopped)
		}
	}
}

func TestRecordFailed(t *testing.T) {
	var before, after bool
	Record(t, func(tb testing.TB) { before = tb.Failed(); tb.Fail(); after = tb.Failed() })
	if before || !after {
		t.Errorf("Failed before and after Fail: %v, %v", before, after)
	}
	if t.Failed() {
		t.Error("the recorder failed its test")
	}
}
