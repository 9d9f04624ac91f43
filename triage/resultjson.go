package triage

import (
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends r as one JSON object, the bytes json.Marshal gives
// for it (its field tags, omitempty, HTML-safe string escapes, invalid
// UTF-8 as U+FFFD), without reflection: batch writes one per input, and
// json.Marshal's reflection was a few percent of a warm batch's CPU
// (issue 29). TestAppendJSONMatchesMarshal and FuzzAppendJSON hold the two
// equal.
func (r *Result) AppendJSON(b []byte) []byte {
	b = appendField(b, `{"path":`, r.Path)
	if r.PathBase64 != "" {
		b = appendField(b, `,"path_base64":`, r.PathBase64)
	}
	b = appendField(b, `,"status":`, r.Status)
	b = appendNonEmpty(b, `,"error":`, r.Error)
	b = appendNonEmpty(b, `,"os":`, r.OS)
	b = appendNonEmpty(b, `,"cpu":`, r.CPU)
	b = appendNonEmpty(b, `,"product":`, r.Product)
	b = appendNonEmpty(b, `,"product_version":`, r.ProductVersion)
	b = append(b, `,"crashed":`...)
	b = strconv.AppendBool(b, r.Crashed)
	b = appendNonEmpty(b, `,"crash_reason":`, r.CrashReason)
	b = appendNonEmpty(b, `,"crash_address":`, r.CrashAddress)
	b = append(b, `,"crashing_thread":`...)
	if r.CrashingThread == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*r.CrashingThread), 10)
	}
	b = append(b, `,"frames":`...)
	if r.Frames == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Frames {
			if i > 0 {
				b = append(b, ',')
			}
			b = r.Frames[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	if len(r.Modules) > 0 {
		b = append(b, `,"modules":[`...)
		for i, m := range r.Modules {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendField(b, `{"name":`, m.Name)
			b = appendNonEmpty(b, `,"version":`, m.Version)
			b = appendNonEmpty(b, `,"debug_id":`, m.DebugID)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(r.MissingSymbols) > 0 {
		b = append(b, `,"modules_without_symbols":[`...)
		for i, s := range r.MissingSymbols {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, s)
		}
		b = append(b, ']')
	}
	b = appendNonEmpty(b, `,"signature":`, r.Signature)
	b = appendNonEmpty(b, `,"stack_id":`, r.StackID)
	b = append(b, `,"ms":`...)
	b = strconv.AppendInt(b, r.Milliseconds, 10)
	return append(b, '}')
}

func (f *Frame) appendJSON(b []byte) []byte {
	// Each field with a comma before it; the first comma becomes the brace
	// (offset and trust are always there).
	open := len(b)
	b = appendNonEmpty(b, `,"module":`, f.Module)
	b = appendNonEmpty(b, `,"function":`, f.Function)
	b = appendNonEmpty(b, `,"file":`, f.File)
	if f.Line != 0 {
		b = strconv.AppendInt(append(b, `,"line":`...), int64(f.Line), 10)
	}
	b = appendField(b, `,"offset":`, f.Offset)
	b = appendField(b, `,"trust":`, f.Trust)
	b[open] = '{'
	return append(b, '}')
}

// appendField appends name (the separator, key and colon) and s.
func appendField(b []byte, name, s string) []byte {
	return appendJSONString(append(b, name...), s)
}

// appendNonEmpty is appendField for an omitempty string: nothing when "".
func appendNonEmpty(b []byte, name, s string) []byte {
	if s == "" {
		return b
	}
	return appendField(b, name, s)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s quoted as encoding/json quotes strings:
// ", \ and control characters escaped (\n, \r, \t, \b, \f by name, the
// others as \u00XX), <, > and & as \u003c, \u003e, \u0026, U+2028 and
// U+2029 as \u2028, \u2029, and each byte of invalid UTF-8 as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
