package inputs

// Strings. A char pointer parameter gets a NUL-terminated string: a
// string function reads until the NUL, which random memory seldom has
// where a test needs it. A word-at-a-time loop (strlen and its kind, as
// compilers and libraries write them) takes a different path for each
// alignment of the start (its warm-up runs 0 to 7 times) and for each
// place of the NUL in its 8-byte word, so input k's string starts
// StringStart(k) bytes past an 8-byte boundary and ends with its NUL at
// offset 3k+1 mod 8 of its word: over eight inputs, every alignment and
// every place of the NUL.

// StringStart is where input k's string starts past an 8-byte boundary.
func StringStart(k int) uint64 { return uint64(k % 8) }

// StringLen is the length (the NUL's offset from the start) of input k's
// string that starts at offset start past an 8-byte boundary and holds at
// least minLen bytes before its NUL.
func StringLen(k int, start, minLen uint64) uint64 {
	return StringLenTo(uint64(3*k+1)%8, start, minLen)
}

// StringLenTo is the least length of at least minLen bytes that puts the
// NUL of a string starting start bytes past an 8-byte boundary at offset
// nul of its word.
func StringLenTo(nul, start, minLen uint64) uint64 {
	return minLen + (nul+16-(start+minLen)%8)%8
}
