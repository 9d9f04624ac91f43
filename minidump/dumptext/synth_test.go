package dumptext

import (
	"encoding/binary"
	"testing"
	"unicode/utf16"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/synthkit"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Synthetic dumps for what the corpus lacks (PDB 2.0 and misc records,
// version info, misc info 3 to 5 with time zone and XSAVE features, Crashpad
// annotations, non-ASCII thread names, arm64 vector registers, Breakpad's
// old arm64 layout, overlapping and duplicate modules), each compared with
// minidump_dump.

func utf16z(s string, n int) []byte {
	b := make([]byte, 2*n)
	for i, u := range utf16.Encode([]rune(s)) {
		if i < n {
			binary.LittleEndian.PutUint16(b[2*i:], u)
		}
	}
	return b
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func u32le(vs ...uint32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

func u64le(vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

// miscInfo5 is a MINIDUMP_MISC_INFO_5 with every group valid.
func miscInfo5(size uint32) []byte {
	sysTime := func(y, mo, dow, d, h, mi, s, ms uint16) []byte {
		var b []byte
		for _, v := range []uint16{y, mo, dow, d, h, mi, s, ms} {
			b = binary.LittleEndian.AppendUint16(b, v)
		}
		return b
	}
	tz := cat(u32le(0xffffff88), utf16z("Pacific Standard Time", 32), sysTime(0, 11, 0, 1, 2, 0, 0, 0),
		u32le(0), utf16z("Pacific Daylight Time", 32), sysTime(0, 3, 0, 2, 2, 0, 0, 0), u32le(0xffffffc4))
	features := make([]byte, 512)
	binary.LittleEndian.PutUint32(features[0:], 0)
	binary.LittleEndian.PutUint32(features[4:], 160)
	binary.LittleEndian.PutUint32(features[16:], 576)
	binary.LittleEndian.PutUint32(features[20:], 256)
	b := cat(u32le(size, 0x3f7, 4242, 1700000000, 3, 1, 3000, 2500, 3000, 1, 0, 0x2000, 0x4d, 0, 1), tz,
		utf16z("10.0.19041.1 (WinBuild.160101.0800)", 260), utf16z("dbg", 40),
		u32le(528, 1024), u64le(0x5), features, u32le(77))
	return b[:size]
}

// crashpadInfo lays out a Crashpad info stream at base: a dictionary, one
// module with list, simple and object annotations (a string and a binary).
func crashpadInfo(base uint32) []byte {
	var b []byte
	str := func(s string) uint32 {
		off := base + uint32(len(b))
		b = append(b, u32le(uint32(len(s)))...)
		b = append(b, s...)
		return off
	}
	k1, v1, k2, v2 := str("zeta"), str("last"), str("alpha"), str("first")
	k3, v3 := str("zeta"), str("dropped duplicate")
	dict := base + uint32(len(b))
	b = append(b, u32le(3, k1, v1, k2, v2, k3, v3)...)
	l1, l2 := str("list one"), str("list two")
	list := base + uint32(len(b))
	b = append(b, u32le(2, l1, l2)...)
	n1, n2 := str("ann-string"), str("ann-binary")
	val1 := base + uint32(len(b))
	b = append(b, u32le(5)...)
	b = append(b, "hello"...)
	val2 := base + uint32(len(b))
	b = append(b, u32le(3, 0)...)[:len(b)+4+3]
	copy(b[len(b)-3:], []byte{0xde, 0xad, 0x01})
	objs := base + uint32(len(b))
	b = append(b, u32le(2, n1, 1|0<<16, val1, n2, 0x22, val2)...)
	modInfo := base + uint32(len(b))
	b = append(b, u32le(1, 8, list, 8, dict, 8, objs)...)
	links := base + uint32(len(b))
	b = append(b, u32le(1, 0, 28, modInfo)...)
	head := cat(u32le(1), []byte("0123456789abcdef"), []byte("fedcba9876543210"), u32le(8, dict, 8, links, 0), u64le(0xffff000000000000))
	return append(head, b...)
}

func TestSyntheticOracle(t *testing.T) {
	bin := oracle.Require(t, oracle.Dump)
	cases := map[string]func() *synth.Builder{
		"windows-x86-records": func() *synth.Builder {
			b := synth.New(minidump.ArchX86, synth.Windows)
			b.Sys.CSDVersion = "Service Pack 3"
			synthkit.SetCPU(b, "AuthenticAMD", 15, 4, 1)
			ctx := minidump.NewContext(minidump.ArchX86)
			ctx.Set("eip", 0x401000)
			ctx.Set("esp", 0x12ff00)
			b.AddThread(7, ctx, 0x12ff00, make([]byte, 64))
			m := b.AddModule(`C:\app\app.exe`, 0x400000, 0x10000)
			m.CodeView = synthkit.CodeViewPDB20(0x4a000000, 3, `C:\app\app.pdb`)
			m.Version = synth.FixedFileInfo{Signature: 0xfeef04bd, StructVersion: 0x10000, FileVersionHi: 0x50001, FileVersionLo: 0xa280884}
			m2 := b.AddModule(`C:\Windows\ntdll.dll`, 0x7c900000, 0x80000)
			m2.CodeView = synth.CodeViewPDB70([16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 2, "ntdll.pdb")
			m3 := b.AddModule(`C:\old\old.dll`, 0x10000000, 0x1000)
			m3.Misc = cat(u32le(1, 12+8), []byte{0, 0, 0, 0}, []byte("old.dbg\x00"))
			m4 := b.AddModule(`C:\old\wide.dll`, 0x20000000, 0x1000)
			m4.Misc = cat(u32le(1, 12+12), []byte{1, 0, 0, 0}, utf16z("wide", 6))
			m5 := b.AddModule(`C:\odd\cv.dll`, 0x30000000, 0x1000)
			m5.CodeView = []byte("CV50\x01\x02\x03")
			b.AddStream(15, miscInfo5(1364))
			b.AddStream(0x47670002, cat(utf16z("x != 0", 128), utf16z("main", 128), utf16z(`c:\app\main.cc`, 128), u32le(42, 1)))
			b.MemoryInfo = append(b.MemoryInfo, synth.MemoryInfo{Base: 0x400000, AllocationBase: 0x400000, AllocationProtection: 0x80, Size: 0x1000, State: 0x1000, Protection: 0x20, Type: 0x1000000})
			b.MemoryInfo = append(b.MemoryInfo, synth.MemoryInfo{Base: 0x401000, Size: 0x2000, State: 0x10000, Protection: 0x1})
			b.BreakpadInfo = &synth.BreakpadInfo{Validity: 2, DumpThread: 0, RequestingThread: 7}
			b.AddThreadName(7, "main \u00e9\U0001F600")
			b.SetException(7, 0xc0000005, 0x401000, 1, 0xdead)
			return b
		},
		"windows-overlapping-modules": func() *synth.Builder {
			b := synth.New(minidump.ArchAMD64, synth.Windows)
			b.AddModule(`a.dll`, 0x10000, 0x2000)
			b.AddModule(`b.dll`, 0x11000, 0x2000)
			b.AddStream(15, miscInfo5(832))
			return b
		},
		"linux-arm64-vectors": func() *synth.Builder {
			b := synth.New(minidump.ArchARM64, synth.Linux)
			raw := make([]byte, 912)
			binary.LittleEndian.PutUint32(raw, 0x400007)
			for i := 0; i < 33; i++ {
				binary.LittleEndian.PutUint64(raw[8+8*i:], uint64(i)<<32|0x1000)
			}
			for i := 0; i < 32; i++ {
				binary.LittleEndian.PutUint64(raw[272+16*i:], uint64(i+1))
				binary.LittleEndian.PutUint64(raw[280+16*i:], 0xabc0000000000000|uint64(i))
			}
			binary.LittleEndian.PutUint32(raw[784:], 0x3000000)
			binary.LittleEndian.PutUint32(raw[788:], 0x10)
			th := b.AddThread(1, minidump.NewContext(minidump.ArchARM64), 0x7000, make([]byte, 32))
			th.RawContext = raw
			m := b.AddModule("/bin/app", 0x400000, 0x10000)
			m.CodeView = synth.CodeViewELF([]byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
			b.AddModule("/lib/libc.so", 0x408000, 0x10000) // overlaps: truncates app
			b.AddModule("/bin/app", 0x400000, 0x10000)     // a duplicate of the first
			b.AddStream(synth.StreamLinuxLSBRelease, []byte("DISTRIB_ID=Debian\nDISTRIB_RELEASE=12\n"))
			synthkit.SetLinuxEnviron(b, "A=1", "B=2")
			b.AddStream(0x47670009, []byte("no trailing NUL"))
			b.AddStream(synth.StreamLinuxCPUInfo, []byte(""))
			b.AddStream(0x43500001, crashpadInfo(0)) // RVAs patched below
			b.AddStream(15, miscInfo5(232))
			return b
		},
		"android-arm64-old-context": func() *synth.Builder {
			b := synth.New(minidump.ArchARM64Old, synth.Android)
			raw := make([]byte, 796)
			binary.LittleEndian.PutUint64(raw, 0x80000002)
			for i := 0; i < 33; i++ {
				binary.LittleEndian.PutUint64(raw[8+8*i:], uint64(0x5000+i))
			}
			binary.LittleEndian.PutUint32(raw[272:], 0x60000000)
			binary.LittleEndian.PutUint32(raw[276:], 0x11)
			binary.LittleEndian.PutUint32(raw[280:], 0x22)
			for i := 0; i < 32; i++ {
				binary.LittleEndian.PutUint64(raw[284+16*i:], uint64(i))
				binary.LittleEndian.PutUint64(raw[292+16*i:], uint64(0x100+i))
			}
			th := b.AddThread(3, minidump.NewContext(minidump.ArchARM64), 0x7000, make([]byte, 32))
			th.RawContext = raw
			b.AddModule("/system/lib/a.so", 0x1000, 0x3000)
			b.AddModule("/system/lib/b.so", 0x2000, 0x3000) // Android: moved up
			b.AddModule("/dev/ashmem/dalvik", 0x2800, 0x100)
			return b
		},
		"linux-arm-old-flags": func() *synth.Builder {
			b := synth.New(minidump.ArchARM, synth.Linux)
			raw := make([]byte, 368)
			binary.LittleEndian.PutUint32(raw, 0x40|0x2)
			for i := 0; i < 16; i++ {
				binary.LittleEndian.PutUint32(raw[4+4*i:], uint32(0x100*i))
			}
			binary.LittleEndian.PutUint64(raw[72:], 0x1234)
			th := b.AddThread(9, minidump.NewContext(minidump.ArchARM), 0x9000, make([]byte, 16))
			th.RawContext = raw
			b.AddModule("/bin/arm", 0x8000, 0x1000)
			b.AddStream(15, miscInfo5(44))
			return b
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			b := build()
			data, err := b.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if rva, _, ok := b.StreamLocation(0x43500001); ok {
				// Lay the Crashpad stream out again at its final offset.
				ci := crashpadInfo(rva + 64)
				copy(data[rva:], ci)
			}
			matchOracle(t, bin, data)
		})
	}
}
