package hlo

import "hash/maphash"

// nameSet is the set of the instruction names defined so far in a computation, for
// checking operands and refusing a name defined twice. An instruction whose name is
// written in the text is held as the byte offset where the instruction starts and 32
// bits of its name's hash (8 bytes in an open-addressed table at most half full,
// rather than a map entry of a string per instruction); a probe reads a name's text
// only when the hash bits match, and growing the table reads none. A name the parser
// gives (an operand written as an instruction) and an instruction past offset 2^32-2
// are held in a map.
type nameSet struct {
	text  string
	seed  maphash.Seed
	slots []uint64 // hash<<32 | 1 + the offset of an instruction in text; 0 is empty
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

func (t *nameSet) hash(name string) uint64 { return maphash.String(t.seed, name) & (1<<32 - 1) }

// has reports whether name is in the set.
func (t *nameSet) has(name string) bool {
	if _, ok := t.other[name]; ok {
		return true
	}
	if len(t.slots) == 0 {
		return false
	}
	mask := uint64(len(t.slots) - 1)
	h := t.hash(name)
	for i := h & mask; t.slots[i] != 0; i = (i + 1) & mask {
		if v := t.slots[i]; v>>32 == h && t.nameAt(int(uint32(v)-1)) == name {
			return true
		}
	}
	return false
}

// add puts in the name of in unless the set has it already; it reports whether it
// did. inText tells an instruction whose name is written in the text, at in.pos.
func (t *nameSet) add(in *Instruction, inText bool) bool {
	if !inText || uint64(in.pos) >= 1<<32-2 {
		if t.has(in.Name) {
			return false
		}
		if t.other == nil {
			t.other = map[string]struct{}{}
		}
		t.other[in.Name] = struct{}{}
		return true
	}
	if _, ok := t.other[in.Name]; ok {
		return false
	}
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	h := t.hash(in.Name)
	i := h & mask
	for ; t.slots[i] != 0; i = (i + 1) & mask {
		if v := t.slots[i]; v>>32 == h && t.nameAt(int(uint32(v)-1)) == in.Name {
			return false
		}
	}
	t.slots[i] = h<<32 | uint64(in.pos+1)
	t.n++
	return true
}

// insert puts slot value v in the first free slot from its hash on.
func (t *nameSet) insert(v uint64) {
	mask := uint64(len(t.slots) - 1)
	i := v >> 32 & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = v
}

// grow doubles the table (16 slots at first) and puts the names back.
func (t *nameSet) grow() {
	old := t.slots
	t.slots = make([]uint64, max(16, 2*len(old)))
	for _, v := range old {
		if v != 0 {
			t.insert(v)
		}
	}
}
