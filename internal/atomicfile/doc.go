// Package atomicfile writes a file through a temporary file in the same
// directory renamed into place, so that a reader never sees half of it. The
// temporary file is created with mode 0666 less the process's umask, as
// os.Create creates files: a report written this way can be published as
// any other file the user writes (os.CreateTemp's 0600 could not).
package atomicfile
