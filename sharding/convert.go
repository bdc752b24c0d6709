package sharding

import (
	"cmp"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"github.com/tpulayout/tpulayout/sharding/placement"
)

// jobOptions are ConvertOptions read: how a shardJob shards a checkpoint.
type jobOptions struct {
	Mesh *placement.Mesh
	// SpecFor gives the spec of each tensor (a Rules' SpecFor, or one spec for all).
	SpecFor func(name string) (placement.Spec, error)
	// Target gives the device layout of a tensor's shard: shard is the row-major
	// shape of the shard in the source dtype.
	Target func(t safetensors.TensorInfo, shard layout.Shape) (layout.Shape, error)
	To     string   // how the target was given, recorded in the manifest
	Source string   // how the checkpoint was named, recorded in the manifest
	Names  []string // the tensors to convert; nil: all
	// Process and Processes split the work as JAX multi-host does: process I of N
	// writes the shards of the devices Mesh.ProcessDevices(I, N) only. Processes 0
	// means one process.
	Process, Processes int
	RelayoutOptions    []relayout.Option
	// Checksum is the images' checksum: ChecksumCRC32C (also ""), or ChecksumSHA256.
	Checksum string
	// Written, when set, is called after each image file with its name and size.
	Written func(file string, bytes int64)
	// Force lets WriteDir replace a directory that a sharded conversion wrote (see
	// CheckOwned), once the new one is complete; Note, when set, hears why an old
	// tree is left beside it.
	Force bool
	Note  func(string)
	// Hold, Track and Untrack let a command remove temporary output when a signal
	// stops it: every file or directory is created between a Hold and the release it
	// returns, each temporary one (the one-process conversion's directory, a shared
	// directory's temporary files) Tracked while held, and Untracked once renamed or
	// removed. A signal handler that takes the same hold can then remove what is
	// tracked with nothing new appearing in it. Unset, they do nothing.
	Hold    func() (release func())
	Track   func(path string)
	Untrack func(path string)
}

func (o *jobOptions) hold() func() {
	if o.Hold == nil {
		return func() {}
	}
	return o.Hold()
}

func (o *jobOptions) track(p string) {
	if o.Track != nil {
		o.Track(p)
	}
}

func (o *jobOptions) untrack(p string) {
	if o.Untrack != nil {
		o.Untrack(p)
	}
}

// shardJob is a checked conversion, ready to write: Prepare finds every error of the input
// before anything is written.
type shardJob struct {
	ckpt    *Checkpoint
	opt     jobOptions
	devices []int // this process's device ids, increasing
	tensors []tensorJob
	sink    sink              // where write writes, while it does
	sum     manifest.Checksum // the images' manifest.Checksum (jobOptions.Checksum)
}

type tensorJob struct {
	t       TensorEntry
	pl      *placement.Placement
	dst     layout.Shape
	plan    *imagePlan
	dir     string
	shards  []int // indices into pl.Shards that this process writes, by index
	grouped bool  // shards with the same start in dim 0 are written together
}

// Prepare checks the conversion of ckpt with opt: specs against the mesh and the
// tensors' dims, targets, plans; nothing is written.
func prepare(ckpt *Checkpoint, opt jobOptions) (*shardJob, error) {
	j := &shardJob{ckpt: ckpt, opt: opt}
	var err error
	if j.sum, err = manifest.ChecksumNamed(cmp.Or(opt.Checksum, manifest.DefaultChecksum)); err != nil {
		return nil, err
	}
	if opt.Processes == 0 {
		opt.Processes, j.opt.Processes = 1, 1
	}
	devs, err := opt.Mesh.ProcessDevices(opt.Process, opt.Processes)
	if err != nil {
		return nil, err
	}
	j.devices = devs
	mine := map[int]bool{}
	for _, d := range devs {
		mine[d] = true
	}
	// Directory names come from all tensors of the checkpoint in name order, so every
	// process and every subset agrees on them.
	dirs := map[string]string{}
	// Never named like the manifests beside them.
	unique := safetensors.UniqueNames{Reserved: "manifest"}
	for _, t := range ckpt.Tensors {
		dirs[t.Name] = unique.Name(t.Name)
	}
	names := opt.Names
	if names == nil {
		for _, t := range ckpt.Tensors {
			names = append(names, t.Name)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("sharding: checkpoint %s holds no tensors", ckpt.Path)
	}
	for _, name := range names {
		t, ok := ckpt.Tensor(name)
		if !ok {
			return nil, fmt.Errorf("sharding: checkpoint %s has no tensor %q", ckpt.Path, name)
		}
		if t.DType.StorageBits()%8 != 0 {
			return nil, fmt.Errorf("sharding: tensor %q: %s elements are not whole bytes", name, t.DType)
		}
		spec, err := opt.SpecFor(name)
		if err != nil {
			return nil, err
		}
		pl, err := placeTensor(opt.Mesh, spec, name, t.Shape)
		if err != nil {
			return nil, err
		}
		dst, err := opt.Target(t.TensorInfo, rowMajor(t.DType, pl.ShardDims))
		if err != nil {
			return nil, &TensorError{Tensor: name, Err: err}
		}
		// Shards that differ only in dims after 0 go band by band together when the
		// image is banded along dim 0 (its majormost): the band target is shared.
		grouped := dst.Rank() > 1 && len(dst.Layout.MinorToMajor) == dst.Rank() && dst.Layout.MinorToMajor[dst.Rank()-1] == 0
		per := int64(1)
		if grouped {
			for _, c := range pl.Counts[1:] {
				per *= int64(c)
			}
		}
		band, ropts, fit := ckpt.file(t.File).bands(opt.RelayoutOptions)
		plan, err := newImagePlan(dst, t.DType, max(band/per, 1), ropts)
		if err != nil {
			return nil, fmt.Errorf("tensor %q: cannot convert its %s shards to %s: %w", name, rowMajor(t.DType, pl.ShardDims), dst, err)
		}
		if fit {
			plan = fitSteps(plan, dst, t.DType, per, ropts)
		}
		tj := tensorJob{t: t, pl: pl, dst: dst, plan: plan, dir: dirs[name], grouped: grouped && per > 1}
		for k, s := range pl.Shards {
			if slices.ContainsFunc(s.Devices, func(d int) bool { return mine[d] }) {
				tj.shards = append(tj.shards, k)
			}
		}
		j.tensors = append(j.tensors, tj)
	}
	return j, nil
}

// groups splits the shards this process writes into groups converted together: with
// the image banded along dim 0, the shards that differ only in later dims share the
// source rows of every band (see imagePlan.writeGroup); otherwise each shard alone.
func (t *tensorJob) groups() [][]int {
	var gs [][]int
	for _, k := range t.shards {
		if t.grouped && len(gs) > 0 {
			last := gs[len(gs)-1]
			if t.pl.Shards[last[0]].Start[0] == t.pl.Shards[k].Start[0] {
				gs[len(gs)-1] = append(last, k)
				continue
			}
		}
		gs = append(gs, []int{k})
	}
	return gs
}

// Bytes is the total size of the images this process writes.
func (j *shardJob) Bytes() int64 {
	var n int64
	for _, t := range j.tensors {
		n += int64(len(t.shards)) * t.plan.footprint
	}
	return n
}

// write writes the images through s and returns the manifest: manifest.json for
// one process, or this process's partial manifest (see Merge). The manifest comes
// last, once every image is complete.
func (j *shardJob) write(s sink) (*manifest.Manifest, error) {
	defer s.flush() // on failures too: it closes the files
	j.sink = s
	defer func() { j.sink = nil }()
	m := j.head()
	m.Tensors = nil
	mine := map[int]bool{}
	for _, d := range j.devices {
		mine[d] = true
	}
	sc := &scratch{}
	defer j.announce()() // a bucket's tensors are fetched ahead, in this order
	for i := range j.tensors {
		mt, err := j.writeTensor(s, &j.tensors[i], mine, sc)
		if err != nil {
			return nil, err
		}
		m.Tensors = append(m.Tensors, mt)
	}
	for pos, id := range j.opt.Mesh.Devices {
		if mine[id] {
			m.Devices = append(m.Devices, manifest.Device{ID: id, Coords: j.opt.Mesh.Coords(pos)})
		}
	}
	// After the images: a bucket's objects are fingerprinted from their reads.
	var err error
	if m.Sources, err = j.sources(); err != nil {
		return nil, err
	}
	m.Normalize()
	js, err := m.Marshal()
	if err != nil {
		return nil, err
	}
	if err := s.prepare(""); err != nil {
		return nil, err
	}
	name := manifest.FileName
	if m.Process != "" {
		name = manifest.PartialName(j.opt.Process, j.opt.Processes)
	}
	err = s.put([]string{name}, nil, func(ws []io.Writer) error {
		_, err := ws[0].Write(js)
		return err
	})
	if err == nil {
		err = s.flush()
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// writeTensor writes the shards of t that this process writes (mine are its
// devices) through s, group by group, and returns the tensor's manifest entry.
func (j *shardJob) writeTensor(s sink, t *tensorJob, mine map[int]bool, sc *scratch) (manifest.Tensor, error) {
	mt := t.manifest()
	if err := s.prepare(t.dir); err != nil {
		return mt, err
	}
	src, err := j.ckpt.source(t.t)
	if err != nil {
		return mt, fmt.Errorf("cannot read tensor %q: %w", t.t.Name, err)
	}
	defer src.Close()
	for _, group := range t.groups() {
		files := make([]string, len(group))
		hs := make([]hash.Hash, len(group))
		starts := make([][]int64, len(group))
		for i, k := range group {
			files[i] = manifest.ShardFile(t.dir, t.pl.Shards[k].Index)
			hs[i] = j.sum.New()
			starts[i] = t.pl.Shards[k].Start
		}
		var n int64
		sums, err := s.present(files) // a rerun's shards already there
		if sums == nil && err == nil {
			err = s.put(files, hs, func(ws []io.Writer) error {
				// A mapped source truncated meanwhile is an error naming it, not SIGBUS.
				return buffer.GuardFaults("source "+t.t.File.Path, func() (err error) {
					n, err = t.plan.writeGroup(ws, hs, src, starts, sc)
					return err
				}, mappedBuffers(src)...)
			})
		} else if err == nil {
			n = t.plan.footprint
		}
		if err != nil {
			return mt, fmt.Errorf("tensor %q: shards %s: %w", t.t.Name, strings.Join(files, ", "), err)
		}
		for i, k := range group {
			sh := &t.pl.Shards[k]
			if j.opt.Written != nil {
				j.opt.Written(files[i], n)
			}
			var devs []int
			for _, d := range sh.Devices {
				if mine[d] {
					devs = append(devs, d)
				}
			}
			sum := j.sum.Hex(hs[i])
			if sums != nil {
				sum = sums[i]
			}
			ms := manifest.Shard{Index: sh.Index, Ranges: t.pl.Ranges(sh), Devices: devs, File: files[i], Bytes: n}
			ms.SetSum(j.sum, sum)
			mt.Shards = append(mt.Shards, ms)
		}
	}
	return mt, nil
}

// ConvertDir prepares and writes a conversion into dir. With one process dir must be
// new or empty: everything is written into a temporary directory beside it that is
// renamed into place at the end, so a failure leaves nothing. With several, dir is
// shared by the processes (created if missing) and each writes its own files and
// partial manifest.
func convertDir(ckpt *Checkpoint, dir string, opt jobOptions) (*manifest.Manifest, error) {
	j, err := prepare(ckpt, opt)
	if err != nil {
		return nil, err
	}
	return j.writeDir(dir)
}

// WriteDir writes a prepared job into dir, as ConvertDir says.
func (j *shardJob) writeDir(dir string) (*manifest.Manifest, error) {
	if j.opt.Processes > 1 {
		if _, err := os.Stat(filepath.Join(dir, manifest.FileName)); err == nil {
			return nil, fmt.Errorf("sharding: %s already holds a merged %s", dir, manifest.FileName)
		}
		// Refused before anything is written: the processes share replicas' files.
		if err := j.checkPartials(dir, dirPartials(dir)); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		return j.write(newDirSink(dir, false, &j.opt))
	}
	if st, err := os.Stat(dir); err == nil {
		if !st.IsDir() {
			return nil, fmt.Errorf("sharding: %s is a file, not a new directory", dir)
		}
		if ents, err := os.ReadDir(dir); err != nil || len(ents) > 0 {
			if !j.opt.Force {
				return nil, &NotEmptyError{Dir: dir}
			}
			if err := CheckOwned(dir); err != nil {
				return nil, &OwnedError{Dir: dir, Err: err}
			}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	// A killed earlier run left its temporary directory; nobody holds it any more.
	buffer.RemoveStaleTemps(dir)
	release := j.opt.hold()
	tmp, unlock, err := buffer.MkdirTempLocked(dir)
	if err == nil {
		j.opt.track(tmp)
	}
	release()
	if err != nil {
		return nil, err
	}
	defer j.opt.untrack(tmp)
	defer unlock()
	m, err := j.write(newDirSink(tmp, true, &j.opt))
	if err == nil {
		err = buffer.RemoveTempMarker(tmp)
	}
	if err == nil {
		err = os.Chmod(tmp, 0o755)
	}
	if err == nil {
		os.Remove(dir) // an empty directory, checked above; or, with Force, ours (kept)
		err = convert.ReplaceDir(tmp, dir, "OUTDIR", CheckOwned, j.note, convert.TempFuncs{HoldFn: j.opt.Hold, TrackFn: j.opt.Track, UntrackFn: j.opt.Untrack})
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return m, nil
}

func (j *shardJob) note(s string) {
	if j.opt.Note != nil {
		j.opt.Note(s)
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// fitSteps returns plan, or a plan of narrower bands whose rows for a group of per
// shards fit in one read buffer (aheadSpan) if it has one: a band's rows are fetched
// as one step, and a shard's window is relaid out straight from the buffer only when
// it lies in one (fromAhead); across two it is copied into a slab first. Bands of
// 8 MiB of image fetch 32 MiB of f32 rows for an 8-bit image: two buffers, every
// window across them. A plan that cannot be narrowed enough (a band is at least a
// tile's rows) is the narrowest found.
func fitSteps(plan *imagePlan, dst layout.Shape, dt layout.DType, per int64, opts []relayout.Option) *imagePlan {
	for range 4 {
		if plan.bands == nil || plan.bands.Dim() != 0 {
			return plan
		}
		step := per * plan.bands.Band(0).SrcLen
		if step <= aheadSpan {
			return plan
		}
		target := max(plan.bands.Band(0).DstLen*aheadSpan/step, 1)
		p, err := newImagePlan(dst, dt, target, opts)
		if err != nil || p.bands == nil || p.bands.Band(0).SrcLen >= plan.bands.Band(0).SrcLen {
			return plan
		}
		plan = p
	}
	return plan
}
