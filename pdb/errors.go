package pdb

import "fmt"

// FileStream marks a FormatError whose offset is in the file itself (the
// superblock, the directory's block map), not in a stream.
const FileStream = -1

// DirectoryStream marks a FormatError whose offset is in the stream
// directory.
const DirectoryStream = -2

// FormatError is a malformed PDB: what was wrong, in which stream and at
// which offset of it (Stream == FileStream: an offset in the file).
type FormatError struct {
	Stream int
	Off    int64
	Msg    string
}

func (e *FormatError) Error() string {
	if e.Stream == FileStream {
		return fmt.Sprintf("pdb: file offset %#x: %s", e.Off, e.Msg)
	}
	if e.Stream == DirectoryStream {
		return fmt.Sprintf("pdb: stream directory offset %#x: %s", e.Off, e.Msg)
	}
	return fmt.Sprintf("pdb: stream %d offset %#x: %s", e.Stream, e.Off, e.Msg)
}

func errAt(stream int, off int64, format string, args ...any) error {
	return &FormatError{Stream: stream, Off: off, Msg: fmt.Sprintf(format, args...)}
}
