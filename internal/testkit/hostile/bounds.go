package hostile

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// This file holds the inputs that stay inside the documented bounds and
// still cost the most memory (issue 26, item 5): they must be processed,
// not refused, within the 512 MB bound of docs/limits.md.

// MicrodumpNear returns an Android ARM microdump of at most size bytes
// (microdump.MaxSize is the largest accepted) made of as many module lines,
// in descending address order, as fit.
func MicrodumpNear(size int) []byte {
	var b strings.Builder
	const tag = microdumpTag
	microdumpStart(&b)
	end := tag + "-----END BREAKPAD MICRODUMP-----\n"
	for i := 0; ; i++ {
		base := uint64(0xfff00000) - uint64(i+1)*0x1000
		m := fmt.Sprintf("%sM %08X 00000000 00001000 %032X0 lib%d.so\n", tag, base, i, i)
		if base < 0x1000 || b.Len()+len(m)+len(end) > size {
			break
		}
		b.WriteString(m)
	}
	b.WriteString(end)
	return []byte(b.String())
}

// PublicSymbols writes to w a symbol file for BombDump's module of about
// size bytes made only of PUBLIC records, each at its own address with its
// own name: nothing a lookup reads lazily, so the index holds them all.
func PublicSymbols(w io.Writer, size int64) error {
	head := "MODULE windows x86_64 " + BombDebugID + " " + BombDebugFile + "\n"
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	n := int64(len(head))
	var buf []byte
	for i := uint64(0); n < size; i++ {
		buf = fmt.Appendf(buf, "PUBLIC %x 0 public_%d\n", 0x1000+16*i, i)
		if len(buf) >= 64<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			n += int64(len(buf))
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}

// WritePublicStore writes under root, in the symbol store layout, BombDump's
// symbol file of PublicSymbols(size), gzip-compressed.
func WritePublicStore(root string, size int64) error {
	p := filepath.Join(root, BombDebugFile, BombDebugID, "app.sym.gz")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(f)
	err = PublicSymbols(zw, size)
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// HostileName holds what a terminal or a log must never get raw: an OSC
// title sequence ended by BEL, a CSI colour, a carriage return, a
// backspace, a forged log line after a line feed, a C1 control and an
// invalid UTF-8 byte.
const HostileName = "evil\x1b]0;owned\x07\x1b[31mred\r\bline\nFORGED: ok\u0085\xff.dll"

// EscapeNames returns a Windows amd64 dump whose module, PDB and thread
// names hold HostileName, with the crashing frame in that module.
func EscapeNames() ([]byte, error) {
	ctx := minidump.NewContext(minidump.ArchAMD64)
	ctx.SetIP(0x401000)
	ctx.SetSP(0x7fff0000)
	b := synth.New(minidump.ArchAMD64, synth.Windows)
	b.AddThread(1, ctx, 0x7fff0000, make([]byte, 64))
	b.AddThreadName(1, HostileName)
	b.SetException(1, 0xc0000005, 0)
	var guid [16]byte
	b.AddModule(`C:\`+HostileName, 0x400000, 0x10000).SetPDB70(guid, 1, HostileName+".pdb")
	b.AddUnloadedModule(synth.UnloadedModule{Base: 0x500000, Size: 0x1000, Name: HostileName})
	return b.Bytes()
}

// ZerosBehindHeader writes to w a minidump header with no streams followed
// by n zero bytes, gzip-compressed at the fastest level: a compression
// bomb that is a valid minidump header.
func ZerosBehindHeader(w io.Writer, n int64) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(zw, "MDMP\x93\xa7\x00\x00"); err != nil {
		return err
	}
	block := make([]byte, 1<<20)
	for ; n > 0; n -= int64(len(block)) {
		if _, err := zw.Write(block[:min(n, int64(len(block)))]); err != nil {
			return err
		}
	}
	return zw.Close()
}
