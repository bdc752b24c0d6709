package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/hlo"
	"github.com/tpulayout/tpulayout/internal/edgetext/shardtext"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/sharding"
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"github.com/tpulayout/tpulayout/tpu"
)

// reportRequest is the JSON the Python package passes to tl_report: which report and
// its arguments, named as the Python functions name them.
type reportRequest struct {
	Report string `json:"report"` // info, explain, hlo, blockspec, verify, gather, shard, merge, open, place, or cute, whereis, equal, copymap, blocks, padding

	Layout string  `json:"layout"` // info, explain, place, cute, whereis, blocks, padding: the array shape
	Index  []int64 `json:"index"`  // explain: a logical index, or
	Offset *int64  `json:"offset"` // explain: an element offset

	Text string `json:"text"` // hlo: the module's text, or
	Path string `json:"path"` // hlo: the module file's path, read as the CLI reads it
	All  bool   `json:"all"`
	To   string `json:"to"`   // hlo: a generation whose default layouts untiled arrays take
	Sort string `json:"sort"` // hlo: "file" or "padding"

	Array    string  `json:"array"` // blockspec: the array's shape
	Block    []int64 `json:"block"` // blockspec, blocks
	Gen      string  `json:"gen"`   // blockspec, info
	Operands int     `json:"operands"`

	Dir    string `json:"dir"`    // verify, gather, merge, open: a sharded conversion's OUTDIR (a directory or bucket prefix)
	Source string `json:"source"` // verify: the checkpoint ("" for the manifest's)
	Out    string `json:"out"`    // gather: the .safetensors file to write; shard: OUTDIR
	Quick  bool   `json:"quick"`  // merge: sizes only, not checksums

	Words   bool   `json:"words"`   // cute: the 32-bit word view too
	Byte    *int64 `json:"byte"`    // whereis: a byte offset, or
	Element *int64 `json:"element"` // whereis: an element offset
	A       string `json:"a"`       // equal: the two shapes
	B       string `json:"b"`
	Src     string `json:"src"` // copymap: the two shapes
	Dst     string `json:"dst"`

	// shard: the sharded conversion, as sharding.ConvertOptions names its fields;
	// place: its Mesh, Devices, Spec, Rules and Tensor (sharding.PlaceOptions).
	Checkpoint string          `json:"checkpoint"`
	Mesh       string          `json:"mesh"`
	Devices    json.RawMessage `json:"devices"` // null, a list of ids, or text such as "0,1,2,3"
	Spec       string          `json:"spec"`
	Rules      json.RawMessage `json:"rules"` // a rules file's path, or its object itself
	DType      string          `json:"dtype"`
	Tensor     string          `json:"tensor"`
	Process    int             `json:"process"`
	Processes  int             `json:"processes"`
	Pad        string          `json:"pad"` // zero, leave or value (with PadValue)
	PadValue   float64         `json:"pad_value"`
	Checksum   string          `json:"checksum"` // crc32c ("") or sha256
}

// cliError is an error of the sharded conversion's verbs with the CLI's message (see
// shardtext.Text), so Python raises what the command prints.
type cliError struct{ err error }

func (e cliError) Error() string {
	return shardtext.Text(e.err, word)
}
func (e cliError) Unwrap() error { return e.err }

func asCLI(err error) error {
	if err == nil {
		return nil
	}
	return cliError{err}
}

// shardOptions are the request's sharded conversion.
func (q *reportRequest) shardOptions() (sharding.ConvertOptions, error) {
	o := sharding.ConvertOptions{Checkpoint: q.Checkpoint, Out: q.Out, Mesh: q.Mesh, Spec: q.Spec, To: q.To, DType: q.DType, Tensor: q.Tensor, All: q.All,
		Process: q.Process, Processes: q.Processes, Checksum: q.Checksum}
	if len(q.Rules) > 0 && string(q.Rules) != "null" {
		if json.Unmarshal(q.Rules, &o.Rules) != nil { // not a path: the rules themselves
			o.RulesJSON = q.Rules
		}
	}
	if len(q.Devices) > 0 && string(q.Devices) != "null" {
		var text string
		if json.Unmarshal(q.Devices, &text) == nil {
			ids, err := sharding.DevicesOption(text)
			if err != nil {
				return o, asCLI(err)
			}
			o.Devices = ids
		} else if err := json.Unmarshal(q.Devices, &o.Devices); err != nil {
			return o, fmt.Errorf("tpulayout: devices: want a list of device ids (ints) or their text, such as \"0,1,2,3\"; got %s", jsonKind(q.Devices))
		}
	}
	opts, err := planOptions(0, q.Pad, q.PadValue)
	if err != nil {
		return o, err
	}
	o.RelayoutOptions = opts
	if q.Pad == "value" { // as to_device's: a pad the images' type does not hold is refused
		whole := o.All || o.Tensor == ""
		o.Target = func(_ safetensors.TensorInfo, shard layout.Shape) (layout.Shape, error) {
			dst, err := sharding.ResolveTarget(o.To, o.DType, shard, whole)
			if err == nil {
				err = checkPadValue(q.PadValue, dst.DType)
			}
			return dst, err
		}
	}
	return o, nil
}

// plainJSONError words encoding/json's errors for Python's callers, without Go's type
// and struct names: a value of the wrong type names the argument (the key, as the
// Python functions name their arguments), what it wants and what it got.
func plainJSONError(err error) string {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		what := ute.Field
		if what == "" {
			what = "the request"
		}
		return fmt.Sprintf("%s: want %s, got a %s", what, pythonType(ute.Type), ute.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("not valid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// pythonType names the kind of Python value a Go type of a request's field takes.
func pythonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a str"
	case reflect.Bool:
		return "a bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an int"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list of " + strings.TrimPrefix(strings.TrimPrefix(pythonType(t.Elem()), "a "), "an ") + "s"
	case reflect.Pointer:
		return pythonType(t.Elem())
	}
	return "a " + t.Kind().String()
}

// jsonKind names the kind of JSON value data holds (object, list, …).
func jsonKind(data []byte) string {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return "invalid JSON"
	}
	switch v.(type) {
	case map[string]any:
		return "an object (a dict)"
	case []any:
		return "a list that is not all whole numbers"
	case string:
		return "a str"
	case bool:
		return "a bool"
	case float64:
		return "a number"
	}
	return "null"
}

// generation parses a generation name; "" is the default generation.
func generation(name string) (tpu.Generation, error) {
	if name == "" {
		return tpu.DefaultGeneration, nil
	}
	return tpu.ParseGeneration(name)
}

// buildReport answers a tl_report request with the report's JSON: the same value
// `tpulayout VERB --json` prints.
func buildReport(reqJSON string) ([]byte, error) {
	var q reportRequest
	if err := json.Unmarshal([]byte(reqJSON), &q); err != nil {
		return nil, fmt.Errorf("tpulayout: report request: %s", plainJSONError(err))
	}
	rep, ok, err := algebraReport(&q)
	if !ok {
		switch q.Report {
		case "info":
			return info(q.Layout, q.Gen, true)
		case "explain":
			rep, err = explainReport(&q)
		case "hlo":
			rep, err = hloReport(&q)
		case "blockspec":
			rep, err = blockspecReport(&q)
		case "verify", "gather", "shard", "place", "merge", "open":
			rep, err = shardingReport(&q)
		default:
			return nil, fmt.Errorf("tpulayout: unknown report %q", q.Report)
		}
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(rep)
}

// explainReport is `tpulayout explain`'s report on an index or an offset.
func explainReport(q *reportRequest) (any, error) {
	ix, err := parseArray(q.Layout)
	if err != nil {
		return nil, err
	}
	switch {
	case q.Offset != nil && q.Index != nil:
		return nil, fmt.Errorf("tpulayout: explain takes an index or an offset, not both")
	case q.Offset != nil:
		return report.ExplainOffset(ix, *q.Offset)
	case q.Index != nil:
		return report.ExplainIndex(ix, q.Index)
	}
	return nil, fmt.Errorf("tpulayout: explain needs an index or an offset")
}

// hloReport is `tpulayout hlo`'s report on a module's arrays.
func hloReport(q *reportRequest) (any, error) {
	m, err := readModule(q.Path, q.Text)
	if err != nil {
		return nil, err
	}
	o := report.HLOOptions{All: q.All}
	switch q.Sort {
	case "", "file":
	case "padding":
		o.SortByPadding = true
	default:
		return nil, fmt.Errorf("tpulayout: sort %q: want file or padding", q.Sort)
	}
	if q.To != "" {
		if o.Gen, err = tpu.ParseGeneration(q.To); err != nil {
			return nil, err
		}
		o.Retile = true
	}
	return report.NewHLO(m, o), nil
}

// blockspecReport is `tpulayout blockspec`'s check of a Pallas block.
func blockspecReport(q *reportRequest) (any, error) {
	g, err := generation(q.Gen)
	if err != nil {
		return nil, err
	}
	sh, err := layout.Parse(q.Array)
	if err != nil {
		return nil, err
	}
	return report.CheckBlock(g, sh, q.Block, q.Operands)
}

// shardingReport runs one of the sharded conversion's verbs, whose errors carry the
// command's words (see asCLI).
func shardingReport(q *reportRequest) (any, error) {
	var rep any
	var err error
	switch q.Report {
	case "verify":
		rep, err = sharding.VerifyOutdir(q.Dir, q.Source)
	case "gather":
		rep, err = sharding.GatherOutdir(q.Dir, q.Out)
	case "shard":
		o, oerr := q.shardOptions()
		if oerr != nil {
			return nil, oerr
		}
		rep, err = sharding.Convert(o)
	case "place":
		return placeReport(q)
	case "merge":
		rep, err = sharding.MergeOutdir(q.Dir, sharding.MergeOptions{Quick: q.Quick})
	case "open":
		rep, err = openReport(q.Dir)
	}
	if err != nil {
		return nil, asCLI(err)
	}
	return rep, nil
}

// placeReport is `tpulayout place`'s placement of one tensor over the devices.
func placeReport(q *reportRequest) (any, error) {
	o, err := q.shardOptions()
	if err != nil {
		return nil, err
	}
	sh, err := convert.ParseShape(q.Layout)
	if err != nil {
		return nil, err
	}
	r, err := sharding.PlaceTensor(sharding.PlaceOptions{Mesh: o.Mesh, Devices: o.Devices, Spec: o.Spec,
		Rules: o.Rules, RulesJSON: o.RulesJSON, Tensor: o.Tensor}, sh)
	if err != nil {
		return nil, asCLI(err)
	}
	return r, nil
}

// openReport is the manifest of a sharded conversion's OUTDIR, and where the images
// are: OUTDIR, or "" for a bucket, whose images the caller reads by ranges
// (tl_read_image).
func openReport(dir string) (any, error) {
	o, err := sharding.OpenOutdir(dir)
	if err != nil {
		return nil, err
	}
	m, err := o.Manifest()
	if err != nil {
		return nil, err
	}
	return struct {
		Manifest *manifest.Manifest `json:"manifest"`
		Dir      string             `json:"dir"`
	}{m, o.Dir}, nil
}

// readModule reads the HLO module at path, under the command line's size limit, or
// parses text when path is "".
func readModule(path, text string) (*hlo.Module, error) {
	if path != "" {
		return convert.ReadModule(path)
	}
	if len(text) > convert.MaxModuleBytes {
		return nil, fmt.Errorf("tpulayout: the module's text has %d bytes, more than the limit of %s for a module", len(text), convert.SizeText(convert.MaxModuleBytes))
	}
	return hlo.ParseString(text)
}
