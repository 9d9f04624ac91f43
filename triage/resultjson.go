package triage

import (
	"strconv"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/jsonstr"
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

// appendJSONString appends s quoted as json.Marshal quotes it.
func appendJSONString(b []byte, s string) []byte { return jsonstr.Append(b, s, true) }
