package inputs

import (
	"encoding/binary"
	"math/rand"
)

// The differential test's plan: a fixed list of inputs, the most telling
// first (the first difference ends a test), chosen to catch the usual ways
// code goes wrong (a changed constant, bound or operator): random bytes,
// small element values that sit next to comparison constants, small codes
// a switch dispatches on, uniform patterns, and arguments 0, 1, small,
// array-sized and negative.

// FillKind is what an input fills a memory region with.
type FillKind int

// Kinds of memory contents.
const (
	FillRandom FillKind = iota // random bytes; floats random but finite
	FillSmall                  // integers in -3..3, floats -3.0..3.0 in steps of 0.5
	FillZero                   // all zero
	FillOne                    // every element 1 (1.0)
	FillOnes                   // every byte 0xff (floats: -1.0)
	FillRamp                   // element i is i mod 7 - 3 (neighbours differ)
	// FillCodes: integers 0..15 at random (floats 0.0..7.5 in steps of
	// 0.5), the values a switch on an opcode byte or an enum dispatches
	// on; FillSmall and FillRamp never reach its cases 4 and up, and
	// random bytes hit any one case once in 256.
	FillCodes
	// FillSorted: ascending integers from -5 in steps of 0 to 3 (floats
	// from -2.5 in steps of 0 to 1.5), duplicates among them: a sorted
	// array, which a search or a sortedness test treats unlike any other
	// fill (each of the others has a descent within a few elements).
	FillSorted
	// FillText: runs of digits with one character of TextBytes in every
	// four (integers and floats as FillSmall): numbers to parse, words to
	// scan.
	FillText
	// FillModerate: integers wider than a byte at random in -2048..2047
	// (bytes and floats as FillRandom): distinct values of both signs
	// whose sums and products of two stay far from overflowing, for a
	// source that traps on signed overflow (a sanitizer build: on random
	// 32-bit elements its first addition traps, and the run shows nothing
	// of the loop).
	FillModerate
)

// TextBytes are what text inputs are made of: half digits, with letters,
// the separators and the signs parsers test for. Random bytes seldom are
// a digit (4%), so a loop that runs while it sees digits (atoi, a number
// scanner) would otherwise stop at once.
const TextBytes = "01234567890123456789012345678901234567890123456789abcxyzABCXYZ \t\n-+.,_/:;"

// ArgKind is what an input gives an integer or float parameter.
type ArgKind int

// Kinds of argument values.
const (
	ArgRandom ArgKind = iota // below 64, like co-execution's first run
	ArgSmall                 // 3
	ArgCount                 // the smallest array's element count
	ArgZero
	ArgOne
	ArgNeg // -1 (2 for unsigned parameters, for which -1 is a huge bound)
)

// PlanStep is one input of the plan.
type PlanStep struct {
	Fill FillKind
	Arg  ArgKind
}

// Plan is the differential test's inputs in the order they are tried.
var Plan = []PlanStep{
	{FillRandom, ArgRandom},
	{FillSmall, ArgCount},
	{FillRandom, ArgCount},
	{FillOne, ArgSmall},
	{FillSmall, ArgNeg},
	{FillZero, ArgZero},
	{FillOnes, ArgOne},
	{FillRamp, ArgCount},
	{FillCodes, ArgCount},
	{FillSorted, ArgCount},
	{FillSorted, ArgSmall},
	{FillText, ArgCount},
}

// PlanRand is input k's source of random values: the plan is
// deterministic for a function.
func PlanRand(k int) *rand.Rand { return rand.New(rand.NewSource(int64(k)*7919 + 1)) }

// Fill returns size bytes of elements of e (in units of e.Unit()) for
// one fill kind. Pointers in
// memory are left zero (NULL): a random address would only make the
// source fault, which shows nothing.
func Fill(rng *rand.Rand, size int, e Elem, kind FillKind) []byte {
	data := make([]byte, size)
	if e.Pointer {
		return data
	}
	es := e.Unit()
	float := e.Float && (es == 4 || es == 8)
	sorted := int64(-5)
	for i, off := 0, 0; off+es <= len(data); i, off = i+1, off+es {
		var v uint64
		switch kind {
		case FillRandom:
			v = rng.Uint64()
			if float {
				v = Finite(v, es)
			}
		case FillModerate:
			v = rng.Uint64()
			switch {
			case float:
				v = Finite(v, es)
			case es > 1:
				v = uint64(int64(rng.Intn(4096) - 2048))
			}
		case FillText:
			if e.Char {
				// Short numbers: digits but for every fourth
				// character, which is any of TextBytes; a string
				// that starts anywhere but there starts with one.
				v = uint64('0' + rng.Intn(10))
				if i%4 == 2 {
					v = uint64(TextBytes[rng.Intn(len(TextBytes))])
				}
				break
			}
			fallthrough
		case FillSmall:
			if float {
				v = FloatBits(float64(rng.Intn(13)-6)/2, es)
			} else {
				v = uint64(int64(rng.Intn(7) - 3))
			}
		case FillZero:
		case FillOne:
			v = 1
			if float {
				v = FloatBits(1, es)
			}
		case FillOnes:
			v = ^uint64(0)
			if float {
				v = FloatBits(-1, es)
			}
		case FillRamp:
			if float {
				v = FloatBits(float64(i%7-3), es)
			} else {
				v = uint64(int64(i%7 - 3))
			}
		case FillCodes:
			if float {
				v = FloatBits(float64(rng.Intn(16))/2, es)
			} else {
				v = uint64(rng.Intn(16))
			}
		case FillSorted:
			if float {
				v = FloatBits(float64(sorted)/2, es)
			} else {
				v = uint64(sorted)
			}
			if step := int64(rng.Intn(4)); es > 1 || sorted+step <= 127 {
				sorted += step // (a byte stays at most 127)
			}
		}
		var buf [8]byte
		binary.LittleEndian.PutUint64(buf[:], v)
		copy(data[off:off+es], buf[:es])
	}
	return data
}

// Arg is a parameter's value for one argument kind; count is the
// ArgCount value. Pointers are the caller's to set. Floats get half the
// integer (0.5 steps); aggregates and unknown registers get the integer in
// each register.
func Arg(rng *rand.Rand, p Param, kind ArgKind, count int) uint64 {
	var x int64
	switch kind {
	case ArgRandom:
		x = int64(rng.Intn(64))
	case ArgSmall:
		x = 3
	case ArgCount:
		x = int64(count)
	case ArgZero:
		x = 0
	case ArgOne:
		x = 1
	case ArgNeg:
		x = -1
		if p.Kind == Int && !p.Signed || p.Kind == Aggregate {
			x = 2
		}
	}
	if p.Kind == Float {
		return FloatBits(float64(x)/2, p.Size)
	}
	return uint64(x)
}

// Link chains the struct elements of data, a buffer at addr, through
// their pointer members (e.Links): each element's links point to the next
// element and the last element's are NULL, so a list walk (or a tree
// walk down one side) visits every element and ends; with addr 0 (a
// buffer whose address is not known here) every link is NULL.
func Link(data []byte, addr uint64, e Elem) {
	if e.Size <= 0 || len(e.Links) == 0 {
		return
	}
	n := len(data) / e.Size
	for j := 0; j < n; j++ {
		next := uint64(0)
		if addr != 0 && j+1 < n {
			next = addr + uint64((j+1)*e.Size)
		}
		for _, off := range e.Links {
			at := j*e.Size + int(off)
			if off >= 0 && int(off)+8 <= e.Size {
				binary.LittleEndian.PutUint64(data[at:at+8], next)
			}
		}
	}
}
