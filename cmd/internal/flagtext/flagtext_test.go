package flagtext

import (
	"flag"
	"os"
	"strings"
	"testing"
	"time"
)

func newSet() *flag.FlagSet {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("to", "", "destination `SHAPE`")
	fs.String("kernel", "avx2", "the kernel")
	fs.Int("count", 10, "`N` samples")
	fs.Int("skip", 0, "rows to skip")
	fs.Bool("json", false, "print JSON, one object a line, for programs that read it")
	fs.Duration("benchtime", 50*time.Millisecond, "sample `DURATION`")
	return fs
}

func ExamplePrint() {
	Print(os.Stdout, newSet(), 0)
	// Output:
	//   --benchtime DURATION
	//     	sample DURATION (default 50ms)
	//   --count N
	//     	N samples (default 10)
	//   --json
	//     	print JSON, one object a line, for programs that read it
	//   --kernel string
	//     	the kernel (default "avx2")
	//   --skip int
	//     	rows to skip
	//   --to SHAPE
	//     	destination SHAPE
}

// With a width, each usage is filled to it; every line fits.
func TestPrintFills(t *testing.T) {
	var b strings.Builder
	Print(&b, newSet(), 40)
	want := "  --json\n" + Indent + "print JSON, one object a line,\n" + Indent + "for programs that read it\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("--json filled to 40:\n%s", b.String())
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if Columns(l) > 40 {
			t.Errorf("%d columns: %q", Columns(l), l)
		}
	}
}

func TestMessage(t *testing.T) {
	names := Names(newSet())
	for _, c := range []struct {
		err   string
		names []string
		want  string
	}{
		{"flag provided but not defined: -cont", names, "unknown flag --cont (did you mean --count?)"},
		{"flag provided but not defined: -cont", nil, "unknown flag --cont"},
		{"flag provided but not defined: --zzz", names, "unknown flag --zzz"},
		{"flag needs an argument: -to", names, "flag --to needs an argument"},
		{`invalid value "x" for flag -count: parse error`, names, `invalid value "x" for flag --count: parse error`},
		{`invalid boolean value "x" for -json: parse error`, names, `invalid boolean value "x" for --json: parse error`},
	} {
		if got := Message(c.err, c.names); got != c.want {
			t.Errorf("Message(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}
