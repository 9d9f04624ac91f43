package symfile

import "encoding/binary"

// stackCFIWord is "STACK CF" as a little-endian word.
var stackCFIWord = binary.LittleEndian.Uint64([]byte("STACK CF"))

// isStackCFI reports whether line starts with "STACK CFI ", comparing a
// word and two bytes: STACK CFI lines are the most common after line records.
func isStackCFI(line []byte) bool {
	return len(line) >= len(pSTACKCFI) && binary.LittleEndian.Uint64(line) == stackCFIWord &&
		line[8] == 'I' && line[9] == ' '
}
