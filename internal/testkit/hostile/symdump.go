package hostile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// SymbolModule is the module a symbol file's MODULE line names.
type SymbolModule struct {
	OS, Arch, DebugID, DebugFile string
}

// ReadSymbolModule reads the MODULE line of a Breakpad symbol file.
func ReadSymbolModule(sym []byte) (SymbolModule, error) {
	line, _, _ := bytes.Cut(sym, []byte("\n"))
	f := strings.Fields(strings.TrimSpace(string(line)))
	if len(f) < 5 || f[0] != "MODULE" {
		return SymbolModule{}, fmt.Errorf("hostile: no MODULE line")
	}
	return SymbolModule{OS: f[1], Arch: f[2], DebugID: f[3], DebugFile: strings.Join(f[4:], " ")}, nil
}

// StorePath returns the path of the module's symbol file in a Breakpad
// symbol store: DebugFile/DebugID/DebugFile less ".pdb", plus ".sym".
func (m SymbolModule) StorePath() string {
	return m.DebugFile + "/" + m.DebugID + "/" + strings.TrimSuffix(m.DebugFile, ".pdb") + ".sym"
}

// DumpForSymbols returns a dump whose one module is the module of the
// symbol file sym (by a CodeView RSDS record carrying its debug file and
// identifier), for symbol files that come with no dump: the crashing
// thread is in its first function, and its stack holds return addresses
// into the next ones, so that walking it reads the file's functions, line
// records and CFI.
func DumpForSymbols(sym []byte) ([]byte, error) {
	m, err := ReadSymbolModule(sym)
	if err != nil {
		return nil, err
	}
	arch, ok := map[string]minidump.Arch{
		"x86": minidump.ArchX86, "x86_64": minidump.ArchAMD64, "amd64": minidump.ArchAMD64,
		"arm": minidump.ArchARM, "arm64": minidump.ArchARM64, "aarch64": minidump.ArchARM64,
	}[strings.ToLower(m.Arch)]
	if !ok {
		return nil, fmt.Errorf("hostile: no walker for %q", m.Arch)
	}
	if len(m.DebugID) < 32 {
		return nil, fmt.Errorf("hostile: debug id %q too short", m.DebugID)
	}
	raw, err := hex.DecodeString(m.DebugID[:32])
	if err != nil {
		return nil, fmt.Errorf("hostile: debug id %q: %w", m.DebugID, err)
	}
	age := uint64(0)
	if len(m.DebugID) > 32 {
		if age, err = strconv.ParseUint(m.DebugID[32:], 16, 32); err != nil {
			return nil, fmt.Errorf("hostile: debug id %q: %w", m.DebugID, err)
		}
	}
	var guid [16]byte // Data1..Data3 little-endian, as stored
	binary.LittleEndian.PutUint32(guid[0:], binary.BigEndian.Uint32(raw[0:]))
	binary.LittleEndian.PutUint16(guid[4:], binary.BigEndian.Uint16(raw[4:]))
	binary.LittleEndian.PutUint16(guid[6:], binary.BigEndian.Uint16(raw[6:]))
	copy(guid[8:], raw[8:])

	funcs, end := functionStarts(sym, 64)
	const base, stackBase = 0x10000000, 0x20000000
	size := min(end+0x1000, 0x0fffffff)
	ip := uint64(base + 0x10)
	if len(funcs) > 0 {
		ip = base + funcs[0] + 1
	}
	wordSize := 8
	if arch == minidump.ArchX86 || arch == minidump.ArchARM {
		wordSize = 4
	}
	stack := make([]byte, 4096)
	for i, f := range funcs[min(1, len(funcs)):] {
		off := (8 + 6*i) * wordSize
		if off+wordSize > len(stack) {
			break
		}
		if wordSize == 4 {
			binary.LittleEndian.PutUint32(stack[off:], uint32(base+f+4))
		} else {
			binary.LittleEndian.PutUint64(stack[off:], base+f+4)
		}
	}
	ctx := minidump.NewContext(arch)
	ctx.SetIP(ip)
	ctx.SetSP(stackBase)
	os := map[string]synth.OS{"windows": synth.Windows, "mac": synth.MacOS, "ios": synth.IOS,
		"solaris": synth.Solaris, "android": synth.Android}[strings.ToLower(m.OS)]
	if os == 0 {
		os = synth.Linux
	}
	b := synth.New(arch, os)
	b.AddThread(1, ctx, stackBase, stack)
	b.SetException(1, 11, 0)
	b.AddModule("/app/"+strings.TrimSuffix(m.DebugFile, ".pdb"), base, uint32(size)).SetPDB70(guid, uint32(age), m.DebugFile)
	return b.Bytes()
}

// functionStarts returns the addresses of the first n FUNC records of sym
// and the end of the highest FUNC or PUBLIC seen.
func functionStarts(sym []byte, n int) (starts []uint64, end uint64) {
	sc := bufio.NewScanner(bytes.NewReader(sym))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 1 && f[1] == "m" {
			f = append(f[:1], f[2:]...)
		}
		if len(f) < 3 || (f[0] != "FUNC" && f[0] != "PUBLIC") {
			continue
		}
		addr, err := strconv.ParseUint(f[1], 16, 64)
		if err != nil || addr >= 0x0fffffff {
			continue
		}
		size := uint64(1)
		if f[0] == "FUNC" {
			if s, err := strconv.ParseUint(f[2], 16, 64); err == nil && s < 0x0fffffff {
				size = s
			}
			if len(starts) < n {
				starts = append(starts, addr)
			}
		}
		end = max(end, addr+size)
	}
	return starts, end
}

// WriteBombStore writes under root, in the symbol store layout, BombDump's
// symbol file decompressing to size bytes, compressed by ext (".gz" or
// ".zst").
func WriteBombStore(root, ext string, size int64) error {
	p := filepath.Join(root, BombDebugFile, BombDebugID, "app.sym"+ext)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	var zw io.WriteCloser
	if ext == ".gz" {
		zw, err = gzip.NewWriterLevel(f, gzip.BestCompression)
	} else {
		zw, err = zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	}
	if err == nil {
		err = SymbolBomb(zw, size)
	}
	if err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}
