package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

var completionVerb = &verb{
	name:     "completion",
	synopsis: "bash|zsh",
	summary:  "print a shell completion script for bash or zsh",
	detail: `Completion prints a script that completes tpulayout's verbs, manifest's sub-verb
(merge), their flags, and the
values of --gen, --to tpu:GEN, --dtype, --view and --pad; other arguments complete as
file names. The lists come from the verb table, so they always match this binary.

  bash:  source <(tpulayout completion bash)                (in ~/.bashrc)
  zsh:   tpulayout completion zsh > "${fpath[1]}/_tpulayout"  (then a new zsh)`,
}

// The completion verb lists every verb, itself included: its define is set here, since
// a reference to verbs from its initializer would be an initialization cycle.
func init() {
	completionVerb.define = func(fs *flag.FlagSet) func([]string, io.Writer) error {
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, "SHELL (bash or zsh)"); err != nil {
				return err
			}
			switch pos[0] {
			case "bash":
				return writeBashCompletion(w)
			case "zsh":
				return writeZshCompletion(w)
			}
			return usagef("unknown shell %q (want bash or zsh)", pos[0])
		}
	}
}

// compFlag is one flag of a verb, for completion.
type compFlag struct {
	name, arg, usage string // arg: the value's placeholder; "" for a boolean flag
}

// verbFlags lists v's flags, sorted by name, as its flag set declares them.
func verbFlags(v *verb) []compFlag {
	fs, _ := newFlagSet(v)
	var out []compFlag
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			arg = ""
		}
		out = append(out, compFlag{f.Name, arg, usage})
	})
	return out
}

// flagValues are the values offered after flags of these names, in any verb.
func flagValues() map[string][]string {
	var gens, tpuGens, dtypes []string
	for _, g := range tpu.Generations() {
		gens = append(gens, g.String())
		tpuGens = append(tpuGens, "tpu:"+g.String())
	}
	for _, d := range layout.DTypes() {
		if d.IsArray() {
			dtypes = append(dtypes, d.String())
		}
	}
	return map[string][]string{
		"gen": gens, "to": tpuGens, "dtype": dtypes, "view": dtypes, "pad": {"zero", "leave"},
	}
}

// topWords are what may follow "tpulayout": the verbs, help, and --help and --version.
func topWords() []string {
	var w []string
	for _, v := range verbs {
		w = append(w, v.name)
	}
	return append(w, "help", "--help", "--version")
}

func writeBashCompletion(w io.Writer) error {
	var b strings.Builder
	b.WriteString(`# bash completion for tpulayout, from 'tpulayout completion bash'.
# Load it with: source <(tpulayout completion bash)

_tpulayout() {
    # Words from the line itself: bash splits tpu:v5e at the colon.
    local line=${COMP_LINE:0:COMP_POINT}
    local cur=${line##*[[:space:]]}
    local before=${line%"$cur"}
    local -a words
    read -ra words <<< "$before"
    local prev=${words[${#words[@]}-1]}
    COMPREPLY=()
    local flags= values=
    if (( ${#words[@]} == 1 )); then
`)
	fmt.Fprintf(&b, "        values=%s\n", shQuote(strings.Join(topWords(), " ")))
	b.WriteString("    else\n        case ${words[1]} in\n")
	var names []string
	for _, v := range verbs {
		names = append(names, v.name)
		var fl []string
		for _, f := range verbFlags(v) {
			fl = append(fl, "--"+f.name)
		}
		fl = append(fl, "--help")
		subs := ""
		if len(v.subverbs) > 0 { // the sub-verb comes first; flags still complete after a dash
			subs = fmt.Sprintf("; (( ${#words[@]} == 2 )) && [[ $cur != -* ]] && values=%s", shQuote(strings.Join(v.subverbs, " ")))
		}
		fmt.Fprintf(&b, "        %s) flags=%s%s ;;\n", v.name, shQuote(strings.Join(fl, " ")), subs)
	}
	fmt.Fprintf(&b, "        help) (( ${#words[@]} == 2 )) && values=%s ;;\n", shQuote(strings.Join(names, " ")))
	b.WriteString("        esac\n")
	b.WriteString("        case ${prev#--} in\n")
	vals := flagValues()
	for _, name := range slices.Sorted(maps.Keys(vals)) {
		fmt.Fprintf(&b, "        %s|-%s) values=%s ;;\n", name, name, shQuote(strings.Join(vals[name], " ")))
	}
	b.WriteString("        esac\n")
	fmt.Fprintf(&b, "        [[ ${words[1]} == completion && ${#words[@]} == 2 ]] && values='bash zsh'\n")
	b.WriteString(`    fi
    if [[ -n $values ]]; then
        COMPREPLY=($(compgen -W "$values" -- "$cur"))
        # bash replaces only what follows the last colon of the word.
        if [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then
            local colon=${cur%"${cur##*:}"}
            COMPREPLY=("${COMPREPLY[@]#"$colon"}")
        fi
    elif [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    fi
    # Otherwise nothing: -o default completes file names.
}
complete -o default -F _tpulayout tpulayout
`)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeZshCompletion(w io.Writer) error {
	var b strings.Builder
	b.WriteString(`#compdef tpulayout
# zsh completion for tpulayout, from 'tpulayout completion zsh'.
# Install: tpulayout completion zsh > "${fpath[1]}/_tpulayout", then start a new zsh.

_tpulayout() {
  local -a verbs
  verbs=(
`)
	for _, v := range verbs {
		fmt.Fprintf(&b, "    %s\n", shQuote(zshEscape(v.name)+":"+zshEscape(v.summary)))
	}
	fmt.Fprintf(&b, "    %s\n", shQuote("help:"+zshEscape("print the help, or a verb's")))
	b.WriteString(`  )
  if (( CURRENT == 2 )); then
    if [[ $PREFIX == -* ]]; then
      compadd -- --help --version
    else
      _describe -t verbs 'tpulayout verb' verbs
    fi
    return
  fi
  local verb=$words[2]
  shift words
  (( CURRENT-- ))
  case $verb in
`)
	vals := flagValues()
	for _, v := range verbs {
		fmt.Fprintf(&b, "  (%s)\n    _arguments -S \\\n", v.name)
		for _, f := range verbFlags(v) {
			spec := "--" + f.name
			if f.arg == "" {
				spec += "[" + zshEscape(f.usage) + "]"
			} else {
				action := ""
				if vs, ok := vals[f.name]; ok {
					var qs []string
					for _, x := range vs {
						qs = append(qs, zshEscape(x))
					}
					action = "(" + strings.Join(qs, " ") + ")"
				} else if strings.Contains(f.arg, "FILE") {
					action = "_files"
				} else {
					action = " " // a value to type: no completion, the placeholder shows
				}
				spec += "=[" + zshEscape(f.usage) + "]:" + zshEscape(f.arg) + ":" + action
			}
			fmt.Fprintf(&b, "      %s \\\n", shQuote(spec))
		}
		fmt.Fprintf(&b, "      '--help[print the help of %s]' \\\n", v.name)
		if v == completionVerb {
			b.WriteString("      '1:shell:(bash zsh)'\n    ;;\n")
			continue
		}
		if len(v.subverbs) > 0 {
			fmt.Fprintf(&b, "      %s \\\n", shQuote("1:subcommand:("+strings.Join(v.subverbs, " ")+")"))
		}
		b.WriteString("      '*:argument:_files'\n    ;;\n")
	}
	b.WriteString(`  (help)
    (( CURRENT == 2 )) && _describe -t verbs 'verb' verbs
    ;;
  esac
}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _tpulayout "$@"
else
  compdef _tpulayout tpulayout
fi
`)
	_, err := io.WriteString(w, b.String())
	return err
}

// shQuote quotes s for a POSIX shell, in single quotes.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// zshEscape escapes the characters that _arguments and _describe give a meaning:
// brackets end a description, colons separate fields.
func zshEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, ":", `\:`).Replace(s)
}
