package hlo

import "hash/maphash"

// nameSet is the set of the instruction names defined so far in a computation, for
// checking operands and refusing a name defined twice. An instruction whose name is
// written in the text is held as the byte offset where the instruction starts (4
// bytes in an open-addressed table, rather than a map entry of a string per
// instruction); a name the parser gives (an operand written as an instruction) and
// an instruction past offset 2^32-2 are held in a map. Each slot has a tag of 8 bits
// of its name's hash, so a probe reads the text of a name only when the tag matches,
// and the table is at most half full.
type nameSet struct {
	text  string
	seed  maphash.Seed
	slots []uint32 // 1 + the offset of an instruction in text; 0 is empty
	tags  []uint8  // the top 8 bits of the hash of the name in the slot
	n     int      // slots in use
	other map[string]struct{}
}

func newNameSet(text string) *nameSet {
	return &nameSet{text: text, seed: maphash.MakeSeed()}
}

// nameAt returns the name of the instruction that starts at byte off of text, read
// as scanner.instruction reads it.
func (t *nameSet) nameAt(off int) string {
	s := scanner{in: t.text, pos: off}
	s.word("ROOT")
	return s.name()
}

// has reports whether name is in the set.
func (t *nameSet) has(name string) bool {
	if _, ok := t.other[name]; ok {
		return true
	}
	if len(t.slots) == 0 {
		return false
	}
	mask := uint64(len(t.slots) - 1)
	h := maphash.String(t.seed, name)
	for i := h & mask; t.slots[i] != 0; i = (i + 1) & mask {
		if t.tags[i] == uint8(h>>56) && t.nameAt(int(t.slots[i]-1)) == name {
			return true
		}
	}
	return false
}

// add puts in the name of in, which is not in the set yet.
func (t *nameSet) add(in *Instruction, inText bool) {
	if !inText || in.pos >= 1<<32-2 {
		if t.other == nil {
			t.other = map[string]struct{}{}
		}
		t.other[in.Name] = struct{}{}
		return
	}
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	t.insert(in.Name, uint32(in.pos)+1)
	t.n++
}

func (t *nameSet) insert(name string, slot uint32) {
	mask := uint64(len(t.slots) - 1)
	h := maphash.String(t.seed, name)
	i := h & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i], t.tags[i] = slot, uint8(h>>56)
}

// grow doubles the table (16 slots at first) and puts the names back.
func (t *nameSet) grow() {
	old := t.slots
	t.slots = make([]uint32, max(16, 2*len(old)))
	t.tags = make([]uint8, len(t.slots))
	for _, v := range old {
		if v != 0 {
			t.insert(t.nameAt(int(v-1)), v)
		}
	}
}
