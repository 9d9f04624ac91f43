package minidump

import (
	"errors"
	"fmt"
)

// KeyValue is one string annotation, in dump order.
type KeyValue struct{ Key, Value string }

// CrashpadAnnotation is an annotation object (MDRawAnnotation).
type CrashpadAnnotation struct {
	Name  string
	Type  uint16 // 1 = string; others are application-defined
	Value []byte
}

// CrashpadModuleInfo holds the annotations Crashpad recorded for one module.
type CrashpadModuleInfo struct {
	ModuleIndex       uint32 // index into Modules() in file order
	Version           uint32
	ListAnnotations   []string
	SimpleAnnotations []KeyValue
	AnnotationObjects []CrashpadAnnotation
}

// CrashpadInfo is MDRawCrashpadInfo with its dictionaries resolved.
type CrashpadInfo struct {
	Version           uint32
	ReportID          GUID
	ClientID          GUID
	SimpleAnnotations []KeyValue
	Modules           []CrashpadModuleInfo
	AddressMask       uint64 // 0 when the stream predates the field
}

// GUID is a Windows GUID as stored in a dump (first three fields little-endian).
type GUID [16]byte

// String formats g as xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
func (g GUID) String() string {
	return fmt.Sprintf("%08x-%04x-%04x-%x-%x", le.Uint32(g[:]), le.Uint16(g[4:]), le.Uint16(g[6:]), g[8:10], g[10:])
}

// maxCrashpadEntries bounds annotation counts independently of the file size.
const maxCrashpadEntries = 1 << 16

// CrashpadInfo parses MD_CRASHPAD_INFO_STREAM. Unreadable parts are skipped
// and reported in the error.
func (f *File) CrashpadInfo() (*CrashpadInfo, error) {
	b, s, err := f.stream(StreamCrashpadInfo)
	if err != nil {
		return nil, err
	}
	if len(b) < 52 {
		return nil, &FormatError{s.Off, s.Name, fmt.Sprintf("size %d, want 52", len(b))}
	}
	ci := &CrashpadInfo{Version: le.Uint32(b)}
	copy(ci.ReportID[:], b[4:20])
	copy(ci.ClientID[:], b[20:36])
	if len(b) >= 60 {
		ci.AddressMask = le.Uint64(b[52:])
	}
	var errs []error
	ci.SimpleAnnotations, err = f.simpleDict(le.Uint32(b[36:]), le.Uint32(b[40:]), s.Name)
	errs = append(errs, err)
	if size, rva := le.Uint32(b[44:]), le.Uint32(b[48:]); size != 0 {
		ci.Modules, err = f.crashpadModules(rva, s.Name)
		errs = append(errs, err)
	}
	return ci, errors.Join(errs...)
}

// utf8String reads MDRawUTF8String: a length and that many bytes (plus a NUL).
func (f *File) utf8String(rva uint32, stream string) (string, error) {
	var lb [4]byte
	if err := f.readAt(lb[:], int64(rva), stream); err != nil {
		return "", err
	}
	n := int64(le.Uint32(lb[:]))
	b, err := f.bytesAt(int64(rva)+4, n, stream)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// counted reads a uint32 count at rva and checks count*entry bytes follow.
func (f *File) counted(rva uint32, entry int64, stream string) ([]byte, int64, error) {
	var lb [4]byte
	if err := f.readAt(lb[:], int64(rva), stream); err != nil {
		return nil, 0, err
	}
	n := int64(le.Uint32(lb[:]))
	if n > maxCrashpadEntries {
		return nil, 0, &FormatError{int64(rva), stream, fmt.Sprintf("count %d too large", n)}
	}
	b, err := f.bytesAt(int64(rva)+4, n*entry, stream)
	return b, n, err
}

func (f *File) simpleDict(size, rva uint32, stream string) ([]KeyValue, error) {
	if size == 0 {
		return nil, nil
	}
	b, n, err := f.counted(rva, 8, stream)
	if err != nil {
		return nil, err
	}
	var out []KeyValue
	var errs []error
	for i := int64(0); i < n; i++ {
		k, err1 := f.utf8String(le.Uint32(b[8*i:]), stream)
		v, err2 := f.utf8String(le.Uint32(b[8*i+4:]), stream)
		if err1 != nil || err2 != nil {
			errs = append(errs, err1, err2)
			continue
		}
		out = append(out, KeyValue{k, v})
	}
	return out, errors.Join(errs...)
}

func (f *File) crashpadModules(rva uint32, stream string) ([]CrashpadModuleInfo, error) {
	b, n, err := f.counted(rva, 12, stream)
	if err != nil {
		return nil, err
	}
	var out []CrashpadModuleInfo
	var errs []error
	for i := int64(0); i < n; i++ {
		e := b[12*i:]
		mi := CrashpadModuleInfo{ModuleIndex: le.Uint32(e)}
		size, mrva := le.Uint32(e[4:]), le.Uint32(e[8:])
		if size < 4 {
			out = append(out, mi)
			continue
		}
		mb, err := f.bytesAt(int64(mrva), int64(min(size, 28)), stream)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		mi.Version = le.Uint32(mb)
		get := func(off int) (uint32, uint32) {
			if off+8 <= len(mb) {
				return le.Uint32(mb[off:]), le.Uint32(mb[off+4:])
			}
			return 0, 0
		}
		if sz, r := get(4); sz != 0 {
			lb, ln, err := f.counted(r, 4, stream)
			errs = append(errs, err)
			for j := int64(0); j < ln && err == nil; j++ {
				str, err := f.utf8String(le.Uint32(lb[4*j:]), stream)
				errs = append(errs, err)
				if err == nil {
					mi.ListAnnotations = append(mi.ListAnnotations, str)
				}
			}
		}
		if sz, r := get(12); sz != 0 {
			mi.SimpleAnnotations, err = f.simpleDict(sz, r, stream)
			errs = append(errs, err)
		}
		if sz, r := get(20); sz != 0 {
			ab, an, err := f.counted(r, 12, stream)
			errs = append(errs, err)
			for j := int64(0); j < an && err == nil; j++ {
				ae := ab[12*j:]
				name, err1 := f.utf8String(le.Uint32(ae), stream)
				val, err2 := f.utf8String(le.Uint32(ae[8:]), stream)
				if err1 != nil || err2 != nil {
					errs = append(errs, err1, err2)
					continue
				}
				mi.AnnotationObjects = append(mi.AnnotationObjects, CrashpadAnnotation{Name: name, Type: le.Uint16(ae[4:]), Value: []byte(val)})
			}
		}
		out = append(out, mi)
	}
	return out, errors.Join(errs...)
}

// MacCrashInfoRecord is one record of Mozilla's macOS crash info stream
// (the strings macOS's CrashReporter keeps per library).
type MacCrashInfoRecord struct {
	Version         uint64
	Thread          uint64
	DialogMode      uint64
	AbortCause      uint64 // version 5 and later
	ModulePath      string
	Message         string
	SignatureString string
	Backtrace       string
	Message2        string
}

// MacCrashInfo parses MOZ_MACOS_CRASH_INFO_STREAM.
func (f *File) MacCrashInfo() ([]MacCrashInfoRecord, error) {
	b, s, err := f.stream(StreamMozMacOSCrashInfo)
	if err != nil {
		return nil, err
	}
	// stream_type, record_count, record_start_size, then 20 location descriptors.
	if len(b) < 12 {
		return nil, &FormatError{s.Off, s.Name, "header truncated"}
	}
	n := int(le.Uint32(b[4:]))
	start := int64(le.Uint32(b[8:]))
	if n > 20 || 12+8*n > len(b) {
		return nil, &FormatError{s.Off, s.Name, fmt.Sprintf("record count %d invalid", n)}
	}
	var out []MacCrashInfoRecord
	var errs []error
	for i := 0; i < n; i++ {
		size, rva := int64(le.Uint32(b[12+8*i:])), le.Uint32(b[16+8*i:])
		rb, err := f.bytesAt(int64(rva), size, s.Name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		// Fixed part: stream_type u32, version, thread, dialog_mode u64 (packed), abort_cause u64 (v5+).
		if size < 28 || start > size || start < 28 {
			errs = append(errs, &FormatError{int64(rva), s.Name, fmt.Sprintf("record size %d / start %d invalid", size, start)})
			continue
		}
		r := MacCrashInfoRecord{Version: le.Uint64(rb[4:]), Thread: le.Uint64(rb[12:]), DialogMode: le.Uint64(rb[20:])}
		if start >= 36 {
			r.AbortCause = le.Uint64(rb[28:])
		}
		strs := splitNULKeepEmpty(rb[start:])
		for j, p := range []*string{&r.ModulePath, &r.Message, &r.SignatureString, &r.Backtrace, &r.Message2} {
			if j < len(strs) {
				*p = strs[j]
			}
		}
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

func splitNULKeepEmpty(b []byte) []string {
	var out []string
	for len(b) > 0 {
		s := cString(b)
		out = append(out, s)
		if len(s) >= len(b) {
			break
		}
		b = b[len(s)+1:]
	}
	return out
}
