package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
)

// The JSON report is written as it is made: the top-level members one by
// one, and the long lists (modules, unloaded modules, threads) one entry at
// a time, each entry built from the state just before it is encoded. So the
// memory a report costs is that of its largest entry, not of the whole
// document and its encoding (a 57.6 MB list of unloaded modules took 1.2 GB
// when the document was built and then encoded whole; docs/limits.md). The
// bytes are those json.Encoder writes for the whole JSONReport, compact or
// indented (TestStreamedJSONMatchesEncoder).

// WriteStateJSON writes the JSON report of st as one line of compact JSON,
// or indented by two spaces when pretty, followed by a newline
// (rust-minidump's layout), building each entry of the long lists only as
// it is written.
func WriteStateJSON(w io.Writer, st *processor.ProcessState, opts JSONOptions, pretty bool) error {
	r, b := buildJSON(st, opts, true)
	lists := builtLists(r)
	if b.lazy {
		// One entry of each module list, reused: each is written before
		// the next is built (a copy boxed per entry was 73 MB for 685,906).
		var m JSONModule
		var u JSONUnloadedModule
		lists = jsonLists{
			"modules":          {len(st.Modules), func(i int) any { m = b.module(i); return &m }},
			"unloaded_modules": {len(st.UnloadedModules), func(i int) any { u = b.unloadedModule(i); return &u }},
			"threads":          {len(st.Threads), func(i int) any { return b.thread(i) }},
		}
	}
	return writeJSONDoc(w, r, lists, pretty)
}

// jsonList is a top-level array written entry by entry.
type jsonList struct {
	n     int
	entry func(i int) any
}

// jsonLists are the streamed arrays by JSON member name.
type jsonLists map[string]jsonList

func builtLists(r *JSONReport) jsonLists {
	return jsonLists{
		"modules":          {len(r.Modules), func(i int) any { return &r.Modules[i] }},
		"unloaded_modules": {len(r.UnloadedModules), func(i int) any { return &r.UnloadedModules[i] }},
		"threads":          {len(r.Threads), func(i int) any { return &r.Threads[i] }},
	}
}

// writeJSONDoc writes r's members in field order (their JSON names'
// order), taking the arrays named in lists from there.
func writeJSONDoc(w io.Writer, r *JSONReport, lists jsonLists, pretty bool) error {
	s := &jsonStream{w: bufio.NewWriterSize(w, 64<<10), pretty: pretty}
	s.enc = json.NewEncoder(&s.buf)
	s.enc.SetEscapeHTML(false) // serde_json does not escape <, > and &
	s.w.WriteByte('{')
	v := reflect.ValueOf(r).Elem()
	t := v.Type()
	members := 0
	for i := range t.NumField() {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		f := v.Field(i)
		if opts == "omitempty" && omitted(f) {
			continue
		}
		s.member(members, name)
		members++
		if l, ok := lists[name]; ok {
			s.list(l)
		} else {
			s.value(f.Interface())
		}
	}
	s.newline(0, members > 0)
	s.w.WriteString("}\n")
	if s.err == nil {
		s.err = s.w.Flush()
	}
	if s.err != nil {
		return fmt.Errorf("encoding JSON report: %w", s.err)
	}
	return nil
}

// omitted tells whether encoding/json leaves out f when tagged omitempty.
func omitted(f reflect.Value) bool {
	switch f.Kind() {
	case reflect.Slice, reflect.Map, reflect.String, reflect.Array:
		return f.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return f.IsNil()
	}
	return f.IsZero()
}

// jsonStream writes one JSON document piecewise, laid out as
// json.Encoder with SetIndent("", "  ") lays out the whole (or compact).
type jsonStream struct {
	w      *bufio.Writer
	pretty bool
	buf    bytes.Buffer
	enc    *json.Encoder
	err    error
}

// newline starts a line at the given depth in pretty output, if any member
// was written in the container being closed or continued.
func (s *jsonStream) newline(depth int, any bool) {
	if !s.pretty || !any {
		return
	}
	s.w.WriteByte('\n')
	for range depth {
		s.w.WriteString("  ")
	}
}

// member starts the i-th member of the top-level object.
func (s *jsonStream) member(i int, name string) {
	if i > 0 {
		s.w.WriteByte(',')
	}
	s.newline(1, true)
	s.encode(name, 1)
	s.w.WriteByte(':')
	if s.pretty {
		s.w.WriteByte(' ')
	}
}

// list writes a top-level member's array entry by entry.
func (s *jsonStream) list(l jsonList) {
	s.w.WriteByte('[')
	for i := 0; i < l.n && s.err == nil; i++ {
		if i > 0 {
			s.w.WriteByte(',')
		}
		s.newline(2, true)
		s.encode(l.entry(i), 2)
	}
	s.newline(1, l.n > 0)
	s.w.WriteByte(']')
}

// value writes a top-level member's value whole.
func (s *jsonStream) value(v any) { s.encode(v, 1) }

// encode writes v as the Encoder writes it at the given depth.
func (s *jsonStream) encode(v any, depth int) {
	if s.err != nil {
		return
	}
	if b, ok := appendEntryJSON(s.w.AvailableBuffer(), v, s.pretty, depth); ok {
		_, s.err = s.w.Write(b) // json_modules.go: the module lists by hand
		return
	}
	if s.pretty {
		s.enc.SetIndent(strings.Repeat("  ", depth), "  ")
	}
	s.buf.Reset()
	if s.err = s.enc.Encode(v); s.err != nil {
		return
	}
	b := s.buf.Bytes()
	_, s.err = s.w.Write(b[:len(b)-1]) // the Encoder's newline
}
