package report

import "github.com/minidump-stackwalk/minidump-stackwalk/internal/jsonstr"

// The module lists are the longest of a JSON report: a 64 MiB microdump
// lists 685,906 modules, a dump's unloaded-module stream over a million.
// json.Encoder spends most of such a report's time in reflection over the
// same two small structs (docs/limits.md), so their objects are written
// here by hand, byte for byte as json.Encoder with SetEscapeHTML(false)
// writes them, compact or with SetIndent(prefix, "  ")
// (TestModuleJSONMatchesEncoder, FuzzModuleJSON).

// appendEntryJSON appends v's JSON encoding, as the jsonStream's Encoder
// writes it at depth (without its newline), when v is a module or an
// unloaded module; ok is false for any other value.
func appendEntryJSON(dst []byte, v any, pretty bool, depth int) (out []byte, ok bool) {
	o := jsonObject{b: dst, pretty: pretty, depth: depth}
	switch m := v.(type) {
	case JSONModule:
		o.module(&m)
	case *JSONModule:
		o.module(m)
	case JSONUnloadedModule:
		o.unloadedModule(&m)
	case *JSONUnloadedModule:
		o.unloadedModule(m)
	default:
		return dst, false
	}
	return o.end(), true
}

func (o *jsonObject) module(m *JSONModule) {
	o.str("base_addr", m.BaseAddr)
	o.strPtr("cert_subject", m.CertSubject)
	o.strPtr("code_id", m.CodeID)
	o.bool("corrupt_symbols", m.CorruptSymbols)
	o.strPtr("debug_file", m.DebugFile)
	o.strPtr("debug_id", m.DebugID)
	o.str("end_addr", m.EndAddr)
	o.str("filename", m.Filename)
	o.bool("loaded_symbols", m.LoadedSymbols)
	o.bool("missing_symbols", m.MissingSymbols)
	o.strPtr("symbol_url", m.SymbolURL)
	o.strPtr("version", m.Version)
}

func (o *jsonObject) unloadedModule(m *JSONUnloadedModule) {
	o.str("base_addr", m.BaseAddr)
	o.strPtr("cert_subject", m.CertSubject)
	o.str("code_id", m.CodeID)
	o.str("end_addr", m.EndAddr)
	o.str("filename", m.Filename)
}

// jsonObject appends one JSON object member by member. Member names are
// plain ASCII, written unescaped.
type jsonObject struct {
	b       []byte
	pretty  bool
	depth   int // the indentation of the object's opening line
	members int
}

func (o *jsonObject) key(name string) {
	if o.members == 0 {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
	o.members++
	o.newline(o.depth + 1)
	o.b = append(o.b, '"')
	o.b = append(o.b, name...)
	o.b = append(o.b, '"', ':')
	if o.pretty {
		o.b = append(o.b, ' ')
	}
}

func (o *jsonObject) newline(depth int) {
	if !o.pretty {
		return
	}
	o.b = append(o.b, '\n')
	for range depth {
		o.b = append(o.b, ' ', ' ')
	}
}

// end closes the object and returns its bytes.
func (o *jsonObject) end() []byte {
	if o.members == 0 {
		return append(o.b, '{', '}')
	}
	o.newline(o.depth)
	return append(o.b, '}')
}

func (o *jsonObject) str(name, s string) {
	o.key(name)
	o.b = appendJSONString(o.b, s)
}

func (o *jsonObject) strPtr(name string, s *string) {
	if s == nil {
		o.key(name)
		o.b = append(o.b, "null"...)
		return
	}
	o.str(name, *s)
}

func (o *jsonObject) bool(name string, v bool) {
	o.key(name)
	if v {
		o.b = append(o.b, "true"...)
	} else {
		o.b = append(o.b, "false"...)
	}
}

// appendJSONString appends s quoted as encoding/json quotes it without
// HTML escaping (the report's encoder sets SetEscapeHTML(false)).
func appendJSONString(dst []byte, s string) []byte { return jsonstr.Append(dst, s, false) }
