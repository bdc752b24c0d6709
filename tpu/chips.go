package tpu

import (
	"fmt"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
)

// Generation names a TPU chip generation.
type Generation uint8

// The generations described by [ChipOf]. The zero value is no generation; functions
// that take one read it as [DefaultGeneration].
const (
	NoGeneration Generation = iota
	V2
	V3
	V4
	V5e
	V5p
	V6e
	TPU7x
	TPU8i // inferred: only in tpu_info.py (spec §1, §4)
	TPU8t // inferred: only in tpu_info.py; 16 sublanes (spec §1)
	numGenerations
)

// DefaultGeneration is the generation used where none is given.
const DefaultGeneration = V5e

var genNames = [numGenerations]string{"", "v2", "v3", "v4", "v5e", "v5p", "v6e", "7x", "8i", "8t"}

// String returns the short name: "v5e", "7x", "8t".
func (g Generation) String() string {
	if g >= numGenerations || g == NoGeneration {
		return fmt.Sprintf("Generation(%d)", uint8(g))
	}
	return genNames[g]
}

// Generations lists every described generation, oldest first.
func Generations() []Generation {
	out := make([]Generation, 0, numGenerations-1)
	for g := V2; g < numGenerations; g++ {
		out = append(out, g)
	}
	return out
}

// ParseGeneration reads a generation name: "v5e", "tpu-v5e", "TPU v5e", "7x",
// "tpu7x", "ironwood", "trillium" (v6e), "v5litepod" (v5e), "8t".
func ParseGeneration(name string) (Generation, error) {
	s := strings.ToLower(strings.TrimSpace(name))
	s = strings.NewReplacer(" ", "", "-", "", "_", "").Replace(s)
	s = strings.TrimPrefix(s, "tpu")
	switch s {
	case "ironwood":
		return TPU7x, nil
	case "trillium":
		return V6e, nil
	case "v5lite", "v5litepod":
		return V5e, nil
	}
	for g := V2; g < numGenerations; g++ {
		n := genNames[g]
		if s == n || s == "v"+n {
			return g, nil
		}
	}
	return NoGeneration, fmt.Errorf("tpu: unknown generation %q (known: %s)", name, GenerationNames())
}

// GenerationNames lists the generations' short names for messages and help:
// "v2, v3, v4, v5e, v5p, v6e, 7x, 8i, 8t".
func GenerationNames() string {
	return strings.Join(genNames[V2:], ", ")
}

// Target is the vreg geometry: Sublanes × Lanes cells, each a 32-bit word
// (spec Decision 1). Every generation through TPU7x is 8 × 128.
type Target struct {
	Sublanes int `json:"sublanes"`
	Lanes    int `json:"lanes"`
}

// DefaultTarget is the 8 × 128 vreg of every generation through TPU7x.
var DefaultTarget = Target{Sublanes: 8, Lanes: 128}

// Words is the number of 32-bit words in one vreg.
func (t Target) Words() int { return t.Sublanes * t.Lanes }

// Bytes is the size of one vreg (4 KiB for 8 × 128).
func (t Target) Bytes() int { return 4 * t.Words() }

func (t Target) valid() bool { return t.Sublanes > 0 && t.Lanes > 0 }

func (t Target) orDefault() Target {
	if t.valid() {
		return t
	}
	return DefaultTarget
}

// Chip describes one TPU generation. Sizes are per chip unless the field says per
// TensorCore; a zero means the spec found no public number. Source cites the ids of
// the spec's source table (tpu-model.md §0) for each group of fields.
type Chip struct {
	Generation Generation `json:"generation"`
	Name       string     `json:"name"`
	// Version is the generation number Mosaic's rules compare against (v5e and v5p
	// are 5, TPU7x is 7).
	Version int `json:"version"`
	// Target is the vreg geometry (sublanes × lanes × 32-bit words).
	Target      Target `json:"vreg"`
	TensorCores int    `json:"tensor_cores"`
	SparseCores int    `json:"sparse_cores,omitempty"`
	MXUsPerCore int    `json:"mxus_per_core"`
	// MXUSize is the systolic array's side: an MXU is MXUSize × MXUSize.
	MXUSize int `json:"mxu_size"`
	// HBMBytes and HBMBandwidth (bytes per second) are per chip.
	HBMBytes     int64 `json:"hbm_bytes"`
	HBMBandwidth int64 `json:"hbm_bandwidth,omitempty"`
	// VMEMBytes and SMEMBytes are per TensorCore; CMEMBytes per chip (v4 only).
	VMEMBytes int64 `json:"vmem_bytes"`
	SMEMBytes int64 `json:"smem_bytes"`
	CMEMBytes int64 `json:"cmem_bytes,omitempty"`
	// PeakBF16 is the peak bf16 rate per chip in FLOP/s.
	PeakBF16 float64 `json:"peak_bf16_flops,omitempty"`
	// MaxSubelements is the most packed values per 32-bit word that subelement masks
	// support: 1 on v2/v3, 2 (16-bit) on v4, 4 (8-bit) from v5 (spec §3.8).
	MaxSubelements int `json:"max_subelements"`
	// MatmulDTypes are the Mosaic-native matmul operand types listed by tpu_info.py
	// (TI). Nil when not listed.
	MatmulDTypes []layout.DType `json:"matmul_dtypes,omitempty"`
	// Inferred marks a description that rests on [I] facts (TPU8i/8t).
	Inferred bool   `json:"inferred,omitempty"`
	Source   string `json:"source"`
	Notes    string `json:"notes,omitempty"`
}

const (
	kib = int64(1) << 10
	mib = int64(1) << 20
	gib = int64(1) << 30
	gb  = int64(1e9)
)

var (
	v5Matmul = []layout.DType{layout.F32, layout.BF16, layout.F8E5M2, layout.F8E4M3B11FNUZ,
		layout.S8, layout.U8, layout.S4, layout.U4}
	v7Matmul = []layout.DType{layout.F32, layout.BF16, layout.F8E5M2, layout.F8E4M3FN}
)

// chips is the table of spec §4. Cloud docs ("GB" decimal, "GiB" binary) take
// precedence where they and TI disagree; the disagreements are in Notes.
var chips = [numGenerations]Chip{
	V2: {Generation: V2, Name: "TPU v2", Version: 2, Target: DefaultTarget,
		TensorCores: 2, MXUsPerCore: 1, MXUSize: 128,
		HBMBytes: 16 * gb, HBMBandwidth: 716 * gb,
		VMEMBytes: 16 * mib, SMEMBytes: 16 * kib, PeakBF16: 46e12,
		MaxSubelements: 1, MatmulDTypes: []layout.DType{layout.F32},
		Source: "vreg: TI; cores, MXU, HBM, bandwidth, peak: TI (no Cloud page); VMEM, SMEM, dtypes: TI",
		Notes:  "HBM and bandwidth come from TI only"},
	V3: {Generation: V3, Name: "TPU v3", Version: 3, Target: DefaultTarget,
		TensorCores: 2, MXUsPerCore: 2, MXUSize: 128,
		HBMBytes: 32 * gib, HBMBandwidth: 900 * gb,
		VMEMBytes: 16 * mib, SMEMBytes: 16 * kib, PeakBF16: 123e12,
		MaxSubelements: 1, MatmulDTypes: []layout.DType{layout.F32},
		Source: "vreg: TI; cores, MXU, HBM, bandwidth, peak: C-v3; VMEM, SMEM, dtypes: TI",
		Notes:  "TI gives a 140 TF peak"},
	V4: {Generation: V4, Name: "TPU v4", Version: 4, Target: DefaultTarget,
		TensorCores: 2, MXUsPerCore: 4, MXUSize: 128,
		HBMBytes: 32 * gib, HBMBandwidth: 1200 * gb,
		VMEMBytes: 16 * mib, SMEMBytes: 1 * mib, CMEMBytes: 128 * mib, PeakBF16: 275e12,
		MaxSubelements: 2, MatmulDTypes: []layout.DType{layout.F32, layout.BF16, layout.S8},
		Source: "vreg: TI, SB; cores (megacore), MXU, HBM, bandwidth, peak: C-v4; VMEM, SMEM, CMEM, dtypes: TI; subelements: LC, TD",
		Notes:  "32 vregs (SB); matmul lhs f32/bf16, rhs f32/bf16/s8 (TI)"},
	V5e: {Generation: V5e, Name: "TPU v5e", Version: 5, Target: DefaultTarget,
		TensorCores: 1, MXUsPerCore: 4, MXUSize: 128,
		HBMBytes: 16 * gb, HBMBandwidth: 819 * gb,
		VMEMBytes: 128 * mib, SMEMBytes: 1 * mib, PeakBF16: 197e12,
		MaxSubelements: 4, MatmulDTypes: v5Matmul,
		Source: "vreg: TI; cores, MXU, HBM, bandwidth, peak: C-v5e; VMEM, SMEM, dtypes: TI; subelements: LC, TD",
		Notes:  "int8 393 TOPS (C-v5e); int4 788 (TI)"},
	V5p: {Generation: V5p, Name: "TPU v5p", Version: 5, Target: DefaultTarget,
		TensorCores: 2, MXUsPerCore: 4, MXUSize: 128,
		HBMBytes: 95 * gib, HBMBandwidth: 2765 * gb,
		VMEMBytes: 64 * mib, SMEMBytes: 1 * mib, PeakBF16: 459e12,
		MaxSubelements: 4, MatmulDTypes: v5Matmul,
		Source: "vreg: TI; cores: C-7x (megacore); MXU, HBM, bandwidth, peak: C-v5p, C-7x; VMEM, SMEM, dtypes: TI; subelements: LC, TD",
		Notes:  "int8 918, int4 1840 (TI)"},
	V6e: {Generation: V6e, Name: "TPU v6e (Trillium)", Version: 6, Target: DefaultTarget,
		TensorCores: 1, MXUsPerCore: 2, MXUSize: 256,
		HBMBytes: 32 * gb, HBMBandwidth: 1638 * gb,
		VMEMBytes: 128 * mib, SMEMBytes: 1 * mib, PeakBF16: 918e12,
		MaxSubelements: 4, MatmulDTypes: v5Matmul,
		Source: "vreg: TI, C-v6e, PD; cores, MXU, HBM, bandwidth, peak: C-v6e; VMEM, SMEM, dtypes: TI; subelements: LC, TD",
		Notes:  "int8 1836 TOPS (C-v6e); fp8 918 (C-7x)"},
	TPU7x: {Generation: TPU7x, Name: "TPU7x (Ironwood)", Version: 7, Target: DefaultTarget,
		TensorCores: 2, SparseCores: 4, MXUsPerCore: 2, MXUSize: 256,
		HBMBytes: 192 * gib, HBMBandwidth: 7380 * gb,
		VMEMBytes: 64 * mib, SMEMBytes: 1 * mib, PeakBF16: 2307e12,
		MaxSubelements: 4, MatmulDTypes: v7Matmul,
		Source: "vreg: TI; cores, HBM, bandwidth, peak: C-7x; MXU (256 columns), VMEM, SMEM, dtypes: TI; subelements: LC, TD",
		Notes:  "fp8 4614 (C-7x); int8 matmul not available (TI); large second-minor tiling by default (TI)"},
	TPU8i: {Generation: TPU8i, Name: "TPU8i", Version: 8, Target: DefaultTarget,
		TensorCores: 2, MXUsPerCore: 2, MXUSize: 256,
		HBMBytes: 309 * gb, VMEMBytes: 192 * mib, SMEMBytes: 1 * mib,
		MaxSubelements: 4, Inferred: true,
		Source: "TI only (no Cloud page found); subelements assumed as v5+ [I]",
		Notes:  "bandwidth, peak and matmul types not in the sources"},
	TPU8t: {Generation: TPU8t, Name: "TPU8t", Version: 8, Target: Target{Sublanes: 16, Lanes: 128},
		TensorCores: 1, MXUsPerCore: 2, MXUSize: 256,
		HBMBytes: 231 * gb, VMEMBytes: 128 * mib, SMEMBytes: 1 * mib,
		MaxSubelements: 4, Inferred: true,
		Source: "TI only (no Cloud page found); a 16 × 128 × 32-bit vreg is [I] from num_sublanes=16",
		Notes:  "bandwidth, peak and matmul types not in the sources"},
}

// ChipOf returns the description of generation g; NoGeneration gives
// [DefaultGeneration]'s. The returned value is a copy the caller may change.
func ChipOf(g Generation) (Chip, error) {
	if g == NoGeneration {
		g = DefaultGeneration
	}
	if g >= numGenerations {
		return Chip{}, fmt.Errorf("tpu: unknown generation %d", uint8(g))
	}
	c := chips[g]
	c.MatmulDTypes = append([]layout.DType(nil), c.MatmulDTypes...)
	return c, nil
}

// Chips returns the description of every generation, oldest first.
func Chips() []Chip {
	out := make([]Chip, 0, numGenerations-1)
	for _, g := range Generations() {
		c, _ := ChipOf(g)
		out = append(out, c)
	}
	return out
}
