package processor

// What the printers ask of a ProcessState beyond its fields: the problems
// sorted for the exit status, the names of stack words (-s, -d), and the
// state of a dump that could not be read at all.

import (
	"errors"
	"io/fs"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/demangle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// Failures returns what makes the report incomplete: the essential streams
// (system info, exception, thread list, module list) that are present but
// unreadable, in that order, then the error that stopped processing
// (ErrNoThreadList, ErrNoMicrodumpContext, or why the dump could not be
// read). The report still shows everything readable; the command line exits
// with status 1 when there are failures.
func (s *ProcessState) Failures() []error {
	var out []error
	for _, stream := range essentialStreams {
		for _, e := range s.ReadErrors {
			if e.Stream == stream {
				out = append(out, e)
			}
		}
	}
	if s.fatal != nil {
		out = append(out, s.fatal)
	}
	return out
}

// Outcome is the status a report gives the processing: Status when
// processing stopped early, StatusPartial when it ran to the end with
// Failures (a broken essential stream, a stack cut by a bound), else
// StatusOK. The command line exits with status 1 exactly when it is not
// StatusOK.
func (s *ProcessState) Outcome() Status {
	switch {
	case s.Status != StatusOK && s.Status != "":
		return s.Status
	case len(s.Failures()) > 0:
		return StatusPartial
	}
	return StatusOK
}

// Warnings returns the other problems met (an ignored overlapping memory
// region, a broken thread name list, a rejected module list), each once:
// absent optional streams are normal and left out, and so are the Failures.
func (s *ProcessState) Warnings() []error {
	var out []error
	for i, e := range s.Errors {
		if errors.Is(e, minidump.ErrNoStream) || i == s.fatalAt-1 || essentialError(e) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// essentialError reports whether e, one of Errors, is a problem of an
// essential stream: note records it in ReadErrors too, so it is one of
// the Failures.
func essentialError(e error) bool {
	se, ok := e.(*StreamError)
	if !ok {
		return false
	}
	for _, stream := range essentialStreams {
		if se.Stream == stream {
			return true
		}
	}
	return false
}

// Unreadable returns the state of a dump that could not be read at all
// (err from minidump.Open, or the conversion of a core): no content, the
// status says whether the file was missing or not a minidump.
func Unreadable(err error) *ProcessState {
	st := &ProcessState{Status: StatusNoMinidumpHeader, RequestingThread: -1, MainModule: -1}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		st.Status = StatusMinidumpNotFound
	}
	st.Errors = []error{err}
	st.fatal, st.fatalAt = err, 1
	return st
}

// Symbolize names the code at an absolute address with the symbol files
// the walk loaded, as Breakpad's resolver does after processing (it loads
// nothing new): the function first, then its inlined calls, deepest first.
// It serves the "Possible instruction pointers" of the -s and -d reports.
// It returns nil when no symbol covers addr or there was no supplier.
func (s *ProcessState) Symbolize(addr uint64) []SourceInfo {
	if s.symbols == nil || s.moduleRanges == nil {
		return nil
	}
	s.resolverOnce.Do(func() {
		s.resolver = walker.NewWalker(&walker.Env{Modules: s.moduleRanges, Symbols: loadedSymbols{s.symbols}})
	})
	f := &walker.Frame{Instruction: addr}
	inlines, _ := s.resolver.Symbolize(f, true)
	if f.Function == "" {
		return nil
	}
	out := []SourceInfo{{Function: f.Function, File: f.SourceFile, Line: f.SourceLine, LineBase: f.SourceLineBase}}
	for _, in := range inlines {
		out = append(out, SourceInfo{Function: in.Function, File: in.SourceFile, Line: in.SourceLine, LineBase: in.SourceLineBase})
	}
	if s.demangled {
		for i := range out {
			out[i].Function = demangle.Name(out[i].Function)
		}
	}
	return out
}

// loadedSymbols is a walker.SymbolSource over the files a symbol cache has
// already loaded, each for the module it was asked for.
type loadedSymbols struct{ c *symbolCache }

func (l loadedSymbols) Symbols(m *walker.Module) (*symfile.File, walker.SymbolStatus) {
	if f := l.c.loaded(m); f != nil {
		return f, walker.SymbolsLoaded
	}
	return nil, walker.SymbolsNotTried
}
