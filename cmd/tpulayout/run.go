package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/tpulayout/tpulayout/cmd/internal/flagtext"
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/tpu"
)

// Exit statuses.
const (
	exitOK       = 0
	exitMismatch = 1 // validate found elements that differ from the reference
	exitUsage    = 2 // bad usage or input, or an output that cannot be written
	// exitInterrupted follows SIGINT, SIGTERM, SIGHUP or SIGQUIT (see exitOnSignal):
	// 128+2, as shells report a process that SIGINT killed.
	exitInterrupted = 130
)

// verb is one subcommand. Adding a verb is one entry in [verbs] and one file defining it.
type verb struct {
	name     string
	synopsis string   // arguments after the verb name, for usage lines
	summary  string   // one line for the verb list
	detail   string   // paragraph(s) for `tpulayout help VERB`
	more     []string // further synopses, for another form of the verb (convert --mesh)
	subverbs []string // the words the first argument may be (manifest merge), for completion
	// define declares the verb's flags on fs and returns the function that runs the verb
	// on the positional arguments, once the flags are parsed. It writes its output to
	// stdout; run discards that output when the verb fails.
	define func(fs *flag.FlagSet) func(pos []string, stdout io.Writer) error
}

// verbs is the subcommand table, in the order `tpulayout help` lists them. `help` itself
// is handled by [run].
var verbs = []*verb{
	exampleVerb, // example.go
	infoVerb,
	explainVerb,
	showVerb,
	convertVerb,
	validateVerb,
	hloVerb,
	blockspecVerb,
	cuteVerb,    // cute.go
	whereisVerb, // whereis.go
	equalVerb,   // algebraverbs.go
	copymapVerb,
	blocksVerb,
	paddingVerb,
	versionVerb,
	completionVerb,
	verifyVerb,   // verify.go
	gatherVerb,   // gather.go
	manifestVerb, // manifest.go
	placeVerb,    // place.go
}

func lookupVerb(name string) *verb {
	for _, v := range verbs {
		if v.name == name {
			return v
		}
	}
	return nil
}

// usageError is bad usage or input: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// isUsage reports whether err is bad usage: ours, a job's (convert.Usage) or a
// report's setting.
func isUsage(err error) bool {
	var ue *usageError
	var je *convert.Error
	var se *report.SettingError
	return errors.As(err, &ue) || errors.As(err, &je) && je.Kind == convert.Setting || errors.As(err, &se)
}

// mismatch is a validation that ran and found differences: exit status 1.
type mismatch struct{ err error }

func (e *mismatch) Error() string { return e.err.Error() }
func (e *mismatch) Unwrap() error { return e.err }

// run is the whole command: it parses args (without the program name), writes the result
// to stdout and any error, as exactly one line, to stderr, and returns the exit status.
// Nothing reaches stdout unless the verb succeeds or finds mismatches (its report).
func run(args []string, stdout, stderr io.Writer) (code int) {
	prefix := "tpulayout"
	// Faults panic rather than crash: reading a mapped input that another process
	// truncated faults (convert names IN itself, see guardMapped; validate's DUMP and REF
	// come here).
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			msg := "internal error: " + oneLine(fmt.Sprint(r))
			if f, ok := r.(interface{ Addr() uintptr }); ok && f.Addr() >= 1<<16 { // not nil-ish
				msg = fmt.Sprintf("cannot read an input file: a memory fault at %#x, as when a file shrinks while it is read", f.Addr())
			}
			fmt.Fprintf(stderr, "%s: %s\n", prefix, msg)
			code = exitUsage
		}
	}()
	temps := newTempOutputs() // run is called once per process, but many times in tests
	running.Store(temps)
	if len(args) == 0 {
		printShortUsage(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		return runHelp(rest, stdout, stderr)
	case "-version", "--version":
		name = versionVerb.name
	}
	v := lookupVerb(name)
	if v == nil {
		what := "verb"
		if strings.HasPrefix(name, "-") {
			what = "flag"
		}
		hint := ""
		if what == "verb" {
			if near := flagtext.Nearest(name, verbList()); near != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", near)
			}
		} else if near := flagtext.Nearest(strings.TrimLeft(name, "-"), []string{"help", "version"}); near != "" {
			hint = fmt.Sprintf(" (did you mean --%s?)", near)
		}
		fmt.Fprintf(stderr, "%s: unknown %s %q%s (verbs: %s); run 'tpulayout help' for usage\n", prefix, what, layout.Quote(name), hint, verbNames())
		return exitUsage
	}
	prefix += " " + v.name
	fs, exec := newFlagSet(v)
	pos, err := parseArgs(fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		printVerbUsage(stdout, v, fs)
		return exitOK
	}
	var out bytes.Buffer
	if err == nil {
		err = exec(pos, &out)
	}
	if err != nil {
		msg := oneLine(errText(err))
		if isUsage(err) {
			msg += fmt.Sprintf(" (usage: %s)", strings.TrimSpace("tpulayout "+v.name+" "+v.synopsis))
		}
		var m *mismatch
		if errors.As(err, &m) {
			// The report of what differs comes first, so that on a terminal, where
			// both streams share a screen, the one-line summary follows it.
			stdout.Write(out.Bytes())
			fmt.Fprintf(stderr, "%s: %s\n", prefix, msg)
			return exitMismatch
		}
		fmt.Fprintf(stderr, "%s: %s\n", prefix, msg)
		return exitUsage
	}
	if _, err := stdout.Write(out.Bytes()); err != nil {
		if errors.Is(err, syscall.EPIPE) { // SIGPIPE's handler may not have run yet
			if temps.isPlaced() {
				return exitOK // only the report of OUT is lost (see exitOnSignal)
			}
			return exitBrokenPipe
		}
		fmt.Fprintf(stderr, "%s: %s\n", prefix, oneLine(err.Error()))
		return exitUsage
	}
	return exitOK
}

func newFlagSet(v *verb) (*flag.FlagSet, func([]string, io.Writer) error) {
	fs := flag.NewFlagSet("tpulayout "+v.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported by run, on one line
	fs.Usage = func() {}
	return fs, v.define(fs)
}

// parseArgs parses flags anywhere among the positional arguments: the flag package stops
// at the first positional one, so parsing resumes after each. "--" ends the flags.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	pos := []string{}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, flagError(fs, err.Error())
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func runHelp(args []string, stdout, stderr io.Writer) int {
	switch len(args) {
	case 0:
		printUsage(stdout)
		return exitOK
	case 1:
		if v := lookupVerb(args[0]); v != nil {
			fs, _ := newFlagSet(v)
			printVerbUsage(stdout, v, fs)
			return exitOK
		}
		switch args[0] {
		case "help", "-h", "-help", "--help": // "tpulayout help --help" is a request for help
			printUsage(stdout)
			return exitOK
		}
		hint := ""
		if near := flagtext.Nearest(args[0], verbList()); near != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", near)
		}
		fmt.Fprintf(stderr, "tpulayout help: unknown verb %q%s (verbs: %s)\n", layout.Quote(args[0]), hint, verbNames())
		return exitUsage
	default:
		fmt.Fprintf(stderr, "tpulayout help: too many arguments (usage: tpulayout help [VERB])\n")
		return exitUsage
	}
}

// verbList is the verbs' names, help last.
func verbList() []string {
	var names []string
	for _, v := range verbs {
		names = append(names, v.name)
	}
	return append(names, "help")
}

func verbNames() string { return strings.Join(verbList(), ", ") }

func printVerbUsage(w io.Writer, v *verb, fs *flag.FlagSet) {
	for i, s := range v.synopses() {
		lead := "Usage:"
		if i > 0 {
			lead = "      "
		}
		fmt.Fprintf(w, "%s tpulayout %s\n", lead, s)
	}
	fmt.Fprintf(w, "\n%s\n", wrapText(v.detail, helpWidth))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintf(w, "\nFlags:\n")
		printFlags(w, fs)
	}
	if strings.Contains(v.synopsis+v.detail, "GEN") || fs.Lookup("gen") != nil {
		fmt.Fprintf(w, "\nTPU generations (GEN): %s.\n", tpu.GenerationNames())
	}
}

// oneLine keeps an error message to a single line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return clampMessage(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
}
