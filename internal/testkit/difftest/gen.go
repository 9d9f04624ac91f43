package difftest

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"path"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/synthkit"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Flavor is an architecture and the producer conventions of one platform.
type Flavor struct {
	Name string
	Arch minidump.Arch
	OS   synth.OS
	// PAC signs saved return addresses (Apple arm64e).
	PAC bool
	// FPWalk: callers may be found through the frame-pointer chain alone
	// (functions without CFI that keep a frame pointer).
	FPWalk bool
	// WinX86 uses STACK WIN records instead of STACK CFI.
	WinX86 bool
	// XState appends an XSAVE area to the x86 context (Windows writes
	// CONTEXT_XSTATE contexts larger than the 716-byte CONTEXT).
	XState bool
	// Stack says how the thread's stack is described: "" a stack
	// descriptor pointing at the bytes; "rva0" a descriptor with the start
	// and size but RVA 0, the bytes in the MemoryList; "rva0-mem64" the same
	// with the bytes only in a Memory64List (Windows full-memory dumps);
	// "empty" an all-zero descriptor, the bytes in the MemoryList.
	Stack string
	// WoW64: an x86 process in a dump whose system information says amd64.
	WoW64 bool
	// Thumb: ARM code in the Thumb instruction set, whose return addresses
	// (in LR and saved on the stack) have bit 0 set.
	Thumb bool
	// OldFlags writes arm context flags with Breakpad's first ARM value.
	OldFlags bool
}

// Flavors are the platforms the generator covers.
var Flavors = []Flavor{
	{Name: "linux-amd64", Arch: minidump.ArchAMD64, OS: synth.Linux, FPWalk: true},
	{Name: "windows-amd64", Arch: minidump.ArchAMD64, OS: synth.Windows},
	{Name: "mac-amd64", Arch: minidump.ArchAMD64, OS: synth.MacOS, FPWalk: true},
	{Name: "linux-x86", Arch: minidump.ArchX86, OS: synth.Linux, FPWalk: true},
	{Name: "windows-x86", Arch: minidump.ArchX86, OS: synth.Windows, WinX86: true},
	{Name: "android-arm", Arch: minidump.ArchARM, OS: synth.Android},
	{Name: "android-arm-thumb", Arch: minidump.ArchARM, OS: synth.Android, Thumb: true},
	{Name: "android-arm-oldflags", Arch: minidump.ArchARM, OS: synth.Android, Thumb: true, OldFlags: true},
	{Name: "linux-arm", Arch: minidump.ArchARM, OS: synth.Linux},
	{Name: "ios-arm", Arch: minidump.ArchARM, OS: synth.IOS, FPWalk: true, Thumb: true},
	{Name: "android-arm64", Arch: minidump.ArchARM64, OS: synth.Android, FPWalk: true},
	{Name: "linux-arm64", Arch: minidump.ArchARM64, OS: synth.Linux, FPWalk: true},
	{Name: "ios-arm64", Arch: minidump.ArchARM64, OS: synth.IOS, PAC: true, FPWalk: true},
	{Name: "mac-arm64", Arch: minidump.ArchARM64, OS: synth.MacOS, PAC: true, FPWalk: true},
	{Name: "windows-arm64", Arch: minidump.ArchARM64, OS: synth.Windows, FPWalk: true},
	{Name: "android-arm64-old", Arch: minidump.ArchARM64Old, OS: synth.Android, FPWalk: true},
	{Name: "windows-x86-xstate", Arch: minidump.ArchX86, OS: synth.Windows, WinX86: true, XState: true},
	{Name: "windows-amd64-xstate", Arch: minidump.ArchAMD64, OS: synth.Windows, XState: true},
	{Name: "windows-x86-wow64", Arch: minidump.ArchX86, OS: synth.Windows, WinX86: true, WoW64: true},
	{Name: "linux-amd64-rva0", Arch: minidump.ArchAMD64, OS: synth.Linux, FPWalk: true, Stack: "rva0"},
	{Name: "windows-amd64-fullmem", Arch: minidump.ArchAMD64, OS: synth.Windows, Stack: "rva0-mem64"},
	{Name: "linux-arm64-nostackdesc", Arch: minidump.ArchARM64, OS: synth.Linux, FPWalk: true, Stack: "empty"},
}

// FlavorByName returns the flavor called name.
func FlavorByName(name string) (Flavor, bool) {
	for _, f := range Flavors {
		if f.Name == name {
			return f, true
		}
	}
	return Flavor{}, false
}

// Case is one generated dump with its symbol files and the true call chain.
type Case struct {
	Flavor Flavor
	Seed   int64
	Dump   []byte
	// Symbols maps a path relative to the symbol root (Breakpad's layout)
	// to the file's contents.
	Symbols map[string]string
	// Truth is the real chain, innermost first, each frame as Breakpad's
	// -m output prints it: module|function|file|line|offset.
	Truth []string
	// Describe lists the frames' function kinds, for failure messages.
	Describe []string
	// HasCode: the dump holds code (GenerateCode).
	HasCode bool
	chain   []*frame   // the true chain, innermost first
	code    *codeImage // HasCode: the modules' code and call sites
}

type funcKind int

const (
	kindFP   funcKind = iota // keeps a frame pointer / frame record
	kindNoFP                 // fixed frame without frame pointer
	kindLeaf                 // pushes nothing (arm, arm64: returns through LR)
)

type symKind int

const (
	symFuncCFI symKind = iota // FUNC + STACK CFI / STACK WIN
	symFunc                   // FUNC only
	symPublic                 // PUBLIC only
	symNone                   // not in the symbol file
)

type function struct {
	mod     *module
	name    string
	start   uint64 // absolute
	size    uint64
	kind    funcKind
	sym     symKind
	locals  uint64 // bytes of locals (word multiple)
	saved   uint64 // x86 FPO: saved register bytes
	params  uint64 // x86 Windows: parameter bytes
	line    int
	prolog  uint64 // bytes before the body (frame fully set up)
	callOff []uint64
}

type module struct {
	codeFile  string
	debugFile string
	debugID   string
	base      uint64
	size      uint64
	funcs     []*function
	hasSyms   bool
	codeView  []byte
	osName    string
	archName  string
	symPrefix string
}

type gen struct {
	rawArch minidump.Arch // the dump's architecture (ArchARM64Old kept)
	r       *rand.Rand
	pacR    *rand.Rand // separate, so that a flavor with PAC has the same chains as one without
	fl      Flavor
	word    uint64
	mods    []*module
	// withCode puts code into the dump (GenerateCode), laid out from codeR.
	withCode bool
	codeR    *rand.Rand
	pacCallR *rand.Rand
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// Generate builds the case for seed on flavor fl.
func Generate(fl Flavor, seed int64) (*Case, error) { return generate(fl, seed, false) }

// GenerateCode builds the case Generate builds, with the same chain,
// stack and symbols, and code in the dump: the modules' code laid out as a
// compiler would (see layoutCode), of which the dump holds what a producer
// saves (see codeRegions).
func GenerateCode(fl Flavor, seed int64) (*Case, error) { return generate(fl, seed, true) }

func generate(fl Flavor, seed int64, withCode bool) (*Case, error) {
	g := &gen{r: rand.New(rand.NewSource(seed)), pacR: rand.New(rand.NewSource(^seed)), fl: fl, word: 8, rawArch: fl.Arch,
		withCode: withCode, codeR: newCodeRand(seed), pacCallR: newPACCallRand(seed)}
	if fl.Arch == minidump.ArchARM64Old {
		g.fl.Arch = minidump.ArchARM64 // same registers, Breakpad's older layout
	}
	if fl.Arch == minidump.ArchX86 || fl.Arch == minidump.ArchARM {
		g.word = 4
	}
	g.makeModules()
	return g.build(seed)
}

func (g *gen) isWindows() bool { return g.fl.OS == synth.Windows }
func (g *gen) isApple() bool   { return g.fl.OS == synth.MacOS || g.fl.OS == synth.IOS }

func (g *gen) makeModules() {
	n := 1 + g.r.Intn(3)
	var base uint64
	switch g.fl.Arch {
	case minidump.ArchAMD64:
		base = 0x7f3a00000000
		if g.isWindows() {
			base = 0x7ff600000000
		}
	case minidump.ArchX86:
		base = 0x08040000
		if g.isWindows() {
			base = 0x00400000
		}
	case minidump.ArchARM:
		base = 0x40000000
	case minidump.ArchARM64:
		base = 0x5500000000
		if g.isApple() {
			base = 0x100000000
		}
		if g.isWindows() {
			base = 0x7ff700000000
		}
	}
	for i := 0; i < n; i++ {
		m := &module{base: base, hasSyms: !g.chance(0.1)}
		g.nameModule(m, i)
		addr := uint64(0x1000)
		nf := 3 + g.r.Intn(6)
		for j := 0; j < nf; j++ {
			f := g.makeFunc(m, j, addr)
			m.funcs = append(m.funcs, f)
			addr += f.size + uint64(g.r.Intn(4))*0x10
		}
		m.size = (addr + 0xfff) &^ 0xfff
		g.mods = append(g.mods, m)
		base += m.size + uint64(1+g.r.Intn(16))*0x10000
	}
	// A chain needs two different callers (no direct recursion): make the
	// first functions non-leaf if too few are.
	callers := 0
	for _, f := range g.allFuncs() {
		if f.canCall() {
			callers++
		}
	}
	for _, f := range g.allFuncs() {
		if callers >= 2 {
			break
		}
		if !f.canCall() {
			f.kind = kindNoFP
			callers++
		}
	}
}

func (g *gen) nameModule(m *module, i int) {
	id := make([]byte, 20)
	g.r.Read(id)
	guid := id[:16]
	guidHex := fmt.Sprintf("%08X%04X%04X%X", binary.LittleEndian.Uint32(guid[0:]),
		binary.LittleEndian.Uint16(guid[4:]), binary.LittleEndian.Uint16(guid[6:]), guid[8:16])
	arch := map[minidump.Arch]string{minidump.ArchAMD64: "x86_64", minidump.ArchX86: "x86",
		minidump.ArchARM: "arm", minidump.ArchARM64: "arm64"}[g.fl.Arch]
	m.archName = arch
	switch {
	case g.isWindows():
		name := fmt.Sprintf("lib%d", i)
		ext := ".dll"
		if i == 0 {
			name, ext = "app", ".exe"
		}
		m.codeFile = `C:\Program Files\App\` + name + ext
		m.debugFile = name + ".pdb"
		age := uint32(1 + g.r.Intn(3))
		m.codeView = synth.CodeViewPDB70([16]byte(guid), age, `C:\build\`+m.debugFile)
		m.debugID = guidHex + fmt.Sprintf("%X", age)
		m.osName = "windows"
		if arch == "x86_64" {
			m.archName = "x86_64"
		}
		m.symPrefix = strings.TrimSuffix(m.debugFile, ".pdb")
	case g.isApple():
		name := fmt.Sprintf("libdep%d.dylib", i)
		m.codeFile = "/usr/lib/" + name
		if i == 0 {
			name = "App"
			m.codeFile = "/Applications/App.app/Contents/MacOS/App"
		}
		m.debugFile = name
		m.codeView = synth.CodeViewPDB70([16]byte(guid), 0, name)
		m.debugID = guidHex + "0"
		m.osName = "mac"
		if g.fl.OS == synth.IOS {
			m.osName = "ios"
		}
		m.symPrefix = name
	default:
		name := fmt.Sprintf("libdep%d.so", i)
		m.codeFile = "/usr/lib/" + name
		if i == 0 {
			name = "app"
			m.codeFile = "/usr/bin/app"
		}
		if g.fl.OS == synth.Android && i > 0 {
			m.codeFile = "/system/lib64/" + name
		}
		m.debugFile = name
		m.codeView = synth.CodeViewELF(id)
		m.debugID = guidHex + "0"
		m.osName = "Linux"
		m.symPrefix = name
	}
}

func (g *gen) makeFunc(m *module, j int, rel uint64) *function {
	f := &function{mod: m, name: fmt.Sprintf("m%d_func%d", len(g.mods), j), start: m.base + rel}
	f.size = 0x40 + uint64(g.r.Intn(16))*0x10
	f.line = 10 + g.r.Intn(500)
	switch x := g.r.Float64(); {
	case x < 0.65:
		f.sym = symFuncCFI
	case x < 0.8:
		f.sym = symFunc
	case x < 0.9:
		f.sym = symPublic
	default:
		f.sym = symNone
	}
	switch x := g.r.Float64(); {
	case x < 0.6:
		f.kind = kindFP
	case x < 0.9 || g.fl.Arch == minidump.ArchX86 || g.fl.Arch == minidump.ArchAMD64:
		f.kind = kindNoFP
	default:
		f.kind = kindLeaf
	}
	if f.kind == kindLeaf && g.fl.Arch == minidump.ArchAMD64 {
		f.kind = kindNoFP
	}
	f.locals = uint64(g.r.Intn(8)) * g.word
	if g.fl.Arch == minidump.ArchAMD64 || g.fl.Arch == minidump.ArchARM64 {
		f.locals = uint64(g.r.Intn(6)) * 16
	}
	if g.fl.WinX86 {
		f.params = uint64(g.r.Intn(4)) * 4
		if f.kind == kindNoFP {
			f.saved = uint64(g.r.Intn(3)) * 4
		}
	}
	f.prolog = 8
	// Call sites (return addresses) lie in the body, past the prologue.
	for k := 0; k < 3; k++ {
		f.callOff = append(f.callOff, f.prolog+4+uint64(g.r.Intn(int(f.size-f.prolog-8)/4))*4)
	}
	return f
}

// canCall reports whether f can be a caller (it is not a leaf).
func (f *function) canCall() bool { return f.kind != kindLeaf }

// frame is one frame of the true chain.
type frame struct {
	fn     *function
	pc     uint64 // frame 0: the IP; else the return address into fn
	atPro  bool   // frame 0 only: stopped at the function's first instruction
	sp, fp uint64
}

func (g *gen) allFuncs() []*function {
	var all []*function
	for _, m := range g.mods {
		all = append(all, m.funcs...)
	}
	return all
}

func (g *gen) randomCaller() *function {
	all := g.allFuncs()
	for {
		f := all[g.r.Intn(len(all))]
		if f.canCall() {
			return f
		}
	}
}

// junk returns a stack word that is not part of the chain.
func (g *gen) junk(stackLo, stackHi uint64) uint64 {
	switch x := g.r.Float64(); {
	case x < 0.3:
		return 0
	case x < 0.5:
		return uint64(g.r.Intn(1000))
	case x < 0.65:
		return stackLo + uint64(g.r.Int63n(int64(stackHi-stackLo)))&^(g.word-1)
	case x < 0.85:
		// A code address: a stale return address left by an earlier
		// call, a function pointer, or another address in code.
		all := g.allFuncs()
		f := all[g.r.Intn(len(all))]
		switch g.r.Intn(3) {
		case 0:
			return g.thumb(f.start + f.callOff[g.r.Intn(len(f.callOff))])
		case 1:
			return f.start
		}
		return f.start + 8 + uint64(g.r.Intn(int(f.size-8)))&^3
	default:
		v := g.r.Uint64()
		if g.word == 4 {
			v &= 0xffffffff
		}
		return v
	}
}

func (g *gen) pac(v uint64) uint64 {
	if !g.fl.PAC || v == 0 {
		return v
	}
	return v | uint64(1+g.pacR.Intn(0x7f))<<48 | uint64(g.pacR.Intn(2))<<55
}

func (g *gen) build(seed int64) (*Case, error) {
	w := g.word
	arch := g.fl.Arch
	// The chain, innermost first.
	depth := 1 + g.r.Intn(7)
	chain := make([]*frame, depth)
	all := g.allFuncs()
	chain[0] = &frame{fn: all[g.r.Intn(len(all))]}
	for i := 1; i < depth; i++ {
		// No direct recursion: a caller in the callee's own function makes
		// a stale LR or a guess right by chance.
		for chain[i] == nil || chain[i].fn == chain[i-1].fn {
			chain[i] = &frame{fn: g.randomCaller()}
		}
	}
	for i := 1; i < depth; i++ {
		f := chain[i].fn
		chain[i].pc = g.thumb(f.start + f.callOff[g.r.Intn(len(f.callOff))])
	}
	f0 := chain[0].fn
	chain[0].atPro = f0.kind == kindLeaf || g.chance(0.1)
	if g.fl.WinX86 {
		chain[0].atPro = false
	}
	if chain[0].atPro && f0.kind != kindLeaf {
		chain[0].pc = f0.start
	} else {
		chain[0].pc = f0.start + f0.prolog + uint64(g.r.Intn(int(f0.size-f0.prolog)/4))*4
	}

	// Lay out the stack from the top (outermost frame) down.
	top := uint64(0x7ffd5000_0000)
	switch arch {
	case minidump.ArchX86, minidump.ArchARM:
		top = 0xbf800000
	case minidump.ArchARM64:
		top = 0x7fe0000000
		if g.isApple() {
			top = 0x16f000000
		}
	}
	if arch == minidump.ArchX86 && g.isWindows() {
		top = 0x00190000
	}
	words := map[uint64]uint64{} // address -> value
	var lo uint64 = top
	put := func(addr, v uint64) {
		words[addr] = v
		if addr < lo {
			lo = addr
		}
	}
	// Thread entry: zero return address and frame pointer at the top.
	cfa := top - 2*w
	put(top-w, 0)
	put(top-2*w, 0)
	callerFP := uint64(0)
	retInto := uint64(0) // return address into the caller of the current frame
	var calleeParams uint64
	for i := depth - 1; i >= 0; i-- {
		fr := chain[i]
		f := fr.fn
		if i > 0 {
			calleeParams = chain[i-1].fn.params
		} else {
			calleeParams = 0
		}
		atPro := i == 0 && fr.atPro
		switch arch {
		case minidump.ArchAMD64, minidump.ArchX86:
			put(cfa-w, retInto)
			switch {
			case atPro:
				fr.sp, fr.fp = cfa-w, callerFP
			case f.kind == kindFP:
				put(cfa-2*w, callerFP)
				fr.fp = cfa - 2*w
				fr.sp = cfa - 2*w - f.locals - calleeParams
			default:
				fr.fp = callerFP
				fr.sp = cfa - w - f.saved - f.locals - calleeParams
			}
		case minidump.ArchARM, minidump.ArchARM64:
			switch {
			case atPro || f.kind == kindLeaf:
				fr.sp, fr.fp = cfa, callerFP
			case f.kind == kindFP:
				put(cfa-w, g.pac(retInto))
				put(cfa-2*w, callerFP)
				fr.fp = cfa - 2*w
				fr.sp = cfa - 2*w - f.locals
			default:
				put(cfa-w, g.pac(retInto))
				if arch == minidump.ArchARM64 {
					put(cfa-2*w, callerFP) // x29 saved but not set up as FP
				} else {
					put(cfa-2*w, g.junk(top-0x2000, top)) // saved r4
				}
				fr.fp = callerFP
				fr.sp = cfa - 2*w - f.locals
			}
		}
		// Fill the locals (and saved registers, parameters) with junk.
		// The outermost frame (a thread's start function) holds zeros, so
		// that the chain has a definite end.
		for a := fr.sp; a < cfa; a += w {
			if _, ok := words[a]; !ok {
				v := uint64(0)
				if i != depth-1 {
					v = g.junk(top-0x2000, top)
				}
				put(a, v)
			}
		}
		cfa = fr.sp
		callerFP = fr.fp
		retInto = fr.pc
	}
	// Some junk below SP (red zone), not in the chain.
	spLo := chain[0].sp
	memLo := spLo
	if g.chance(0.3) {
		memLo = spLo - 4*w
		for a := memLo; a < spLo; a += w {
			put(a, g.junk(top-0x2000, top))
		}
	}
	if memLo < lo {
		lo = memLo
	}
	stack := make([]byte, top-lo)
	for a, v := range words {
		if w == 4 {
			binary.LittleEndian.PutUint32(stack[a-lo:], uint32(v))
		} else {
			binary.LittleEndian.PutUint64(stack[a-lo:], v)
		}
	}

	// The context.
	ctx := minidump.NewContext(g.rawArch)
	for i := 0; i < ctx.NumRegs(); i++ {
		v := g.r.Uint64()
		if w == 4 {
			v &= 0xffffffff
		}
		ctx.SetIndex(i, v)
	}
	ctx.SetIP(chain[0].pc)
	ctx.SetSP(chain[0].sp)
	switch arch {
	case minidump.ArchAMD64:
		ctx.SetIndex(minidump.AMD64RBP, chain[0].fp)
		ctx.Flags = synth.ContextAMD64Full
	case minidump.ArchX86:
		ctx.SetIndex(minidump.X86EBP, chain[0].fp)
		ctx.Flags = synth.ContextX86All
		if g.isWindows() {
			ctx.Flags = synth.ContextFlagsX86 | 0x7 // CONTROL|INTEGER|SEGMENTS
		}
	case minidump.ArchARM:
		fpReg := 11
		if g.fl.OS == synth.IOS {
			fpReg = 7
		}
		ctx.SetIndex(fpReg, chain[0].fp)
		if fpReg == 11 {
			ctx.SetIndex(7, chain[0].fp) // our CFI saves r7
		}
		ctx.SetIndex(14, chain[0].lrValue(g, depth, chain))
		if g.fl.OldFlags {
			ctx.Flags = 0x40 | 0x6 // Breakpad's first ARM value (MD_CONTEXT_ARM_OLD), no CPU bits
		}
	case minidump.ArchARM64:
		ctx.SetIndex(minidump.ARM64FP, chain[0].fp)
		ctx.SetIndex(minidump.ARM64LR, chain[0].lrValue(g, depth, chain))
		ctx.Flags = synth.ContextARM64Full
		if g.rawArch == minidump.ArchARM64Old {
			ctx.Flags = synth.ContextARM64OldFull
		}
	}

	b := synth.New(g.rawArch, g.fl.OS)
	b.Memory64 = g.fl.Stack == "rva0-mem64"
	if g.fl.WoW64 {
		b.Sys.Arch = minidump.ArchAMD64
	}
	switch arch {
	case minidump.ArchAMD64, minidump.ArchX86:
		synthkit.SetCPU(b, "GenuineIntel", 6, 0x55, 4)
	case minidump.ArchARM:
		b.Sys.ProcessorLevel, b.Sys.ARMCPUID, b.Sys.ARMHWCaps = 7, 0x410fc075, 0
	}
	if g.isWindows() {
		b.Sys.MajorVersion, b.Sys.MinorVersion, b.Sys.BuildNumber = 10, 0, 19045
	} else if g.isApple() {
		b.Sys.MajorVersion, b.Sys.MinorVersion, b.Sys.BuildNumber = 14, 2, 0
	} else {
		b.SetCSDVersion("Linux 6.1.0 #1 SMP")
	}
	th := b.AddThread(0x101, ctx, lo, stack)
	if g.fl.XState {
		raw, err := synth.EncodeContext(ctx, synth.ContextExtra{})
		if err != nil {
			return nil, err
		}
		// CONTEXT_XSTATE and a 0x340-byte XSAVE area (legacy region and
		// header, AVX state), as Windows writes.
		flagsOff := 0
		if arch == minidump.ArchAMD64 {
			flagsOff = 48
		}
		binary.LittleEndian.PutUint32(raw[flagsOff:], ctx.Flags|0x40)
		th.RawContext = append(raw, make([]byte, 0x340)...)
	}
	if arch == minidump.ArchAMD64 {
		th.Extra.CS, th.Extra.SS = 0x33, 0x2b
	}
	code := uint32(11)
	if g.isWindows() {
		code = 0xc0000005
	}
	b.SetException(0x101, code, 0)
	for _, m := range g.mods {
		bm := b.AddModule(m.codeFile, m.base, uint32(m.size))
		bm.CodeView = m.codeView
		bm.TimeDateStamp = uint32(g.r.Int31())
	}
	var img *codeImage
	if g.withCode {
		img = g.addCode(b, chain, stack, ctx)
	}
	dump, err := b.Bytes()
	if err != nil {
		return nil, err
	}
	if dump, err = g.patchStack(b, dump); err != nil {
		return nil, err
	}
	c := &Case{Flavor: g.fl, Seed: seed, Dump: dump, Symbols: map[string]string{}, HasCode: g.withCode, code: img}
	c.Flavor.Arch = g.rawArch
	for _, m := range g.mods {
		if m.hasSyms {
			p := path.Join(m.debugFile, m.debugID, m.symPrefix+".sym")
			c.Symbols[p] = g.symFile(m)
		}
	}
	c.chain = chain
	for i, fr := range chain {
		addr := fr.pc
		if i > 0 {
			addr -= g.printDelta()
		}
		c.Truth = append(c.Truth, g.printed(fr.fn, addr))
		c.Describe = append(c.Describe, fmt.Sprintf("%s kind=%d sym=%d pc=%#x sp=%#x fp=%#x atPro=%v%s", fr.fn.name, fr.fn.kind, fr.fn.sym, fr.pc, fr.sp, fr.fp, fr.atPro, img.describeSite(chain, i)))
	}
	return c, nil
}

// lrValue is the link register of the context frame: the return address
// when frame 0 has not saved it, else junk-looking but plausible.
func (fr *frame) lrValue(g *gen, depth int, chain []*frame) uint64 {
	f := fr.fn
	if (fr.atPro || f.kind == kindLeaf) && depth > 1 {
		return g.pac(chain[1].pc)
	}
	if fr.atPro || f.kind == kindLeaf {
		return 0
	}
	// A function that has made calls: LR points back into itself.
	return g.pac(g.thumb(f.start + f.callOff[0]))
}

// thumb marks a return address as Thumb code when the flavor is.
func (g *gen) thumb(ra uint64) uint64 {
	if g.fl.Thumb {
		return ra | 1
	}
	return ra
}

// publicAddr is the address a PUBLIC record gives f: an ELF symbol's
// value, which for a Thumb function has bit 0 set (dump_syms keeps it).
func (g *gen) publicAddr(f *function) uint64 {
	if g.fl.Thumb {
		return f.start | 1
	}
	return f.start
}

// printDelta is what Breakpad subtracts from a caller's return address
// before printing it.
func (g *gen) printDelta() uint64 {
	switch g.fl.Arch {
	case minidump.ArchARM:
		return 2
	case minidump.ArchARM64:
		return 4
	}
	return 0
}

// printed is the -m form of a frame at addr in f, named as Breakpad's
// resolver names it: the FUNC containing addr; else the PUBLIC symbol
// with the greatest address at or below addr, when that lies above the
// nearest FUNC below (so a function the symbol file leaves out takes the
// name of a PUBLIC before it, and a Thumb function's first instruction,
// below its odd PUBLIC address, the name of the symbol before); else
// the module and offset.
func (g *gen) printed(f *function, addr uint64) string {
	m := f.mod
	mod := m.codeFile
	if i := strings.LastIndexAny(mod, `/\`); i >= 0 {
		mod = mod[i+1:]
	}
	if !m.hasSyms {
		return fmt.Sprintf("%s||||%#x", mod, addr-m.base)
	}
	var pub *function
	var pubBase, funcBase uint64
	hasFunc := false
	for _, o := range m.funcs {
		switch o.sym {
		case symFuncCFI, symFunc:
			if addr >= o.start && addr-o.start < o.size {
				return fmt.Sprintf("%s|%s|src/%s.c|%d|%#x", mod, o.name, m.symPrefix, o.line, addr-o.start)
			}
			if o.start <= addr && (!hasFunc || o.start > funcBase) {
				funcBase, hasFunc = o.start, true
			}
		case symPublic:
			if a := g.publicAddr(o); a <= addr && (pub == nil || a > pubBase) {
				pub, pubBase = o, a
			}
		}
	}
	if pub != nil && (!hasFunc || pubBase > funcBase) {
		return fmt.Sprintf("%s|%s|||%#x", mod, pub.name, addr-pubBase)
	}
	return fmt.Sprintf("%s||||%#x", mod, addr-m.base)
}

func (g *gen) symFile(m *module) string {
	var sb strings.Builder
	osName := m.osName
	fmt.Fprintf(&sb, "MODULE %s %s %s %s\n", osName, m.archName, m.debugID, m.debugFile)
	fmt.Fprintf(&sb, "FILE 0 src/%s.c\n", m.symPrefix)
	for _, f := range m.funcs {
		rel := f.start - m.base
		switch f.sym {
		case symFuncCFI, symFunc:
			fmt.Fprintf(&sb, "FUNC %x %x %x %s\n", rel, f.size, f.params, f.name)
			fmt.Fprintf(&sb, "%x %x %d 0\n", rel, f.size, f.line)
		case symPublic:
			fmt.Fprintf(&sb, "PUBLIC %x %x %s\n", g.publicAddr(f)-m.base, f.params, f.name)
		}
	}
	for _, f := range m.funcs {
		if f.sym != symFuncCFI {
			continue
		}
		g.writeUnwind(&sb, f)
	}
	return sb.String()
}

func (g *gen) writeUnwind(sb *strings.Builder, f *function) {
	rel := f.start - f.mod.base
	switch g.fl.Arch {
	case minidump.ArchAMD64:
		fmt.Fprintf(sb, "STACK CFI INIT %x %x .cfa: $rsp 8 + .ra: .cfa -8 + ^\n", rel, f.size)
		if f.kind == kindFP {
			fmt.Fprintf(sb, "STACK CFI %x .cfa: $rsp 16 + $rbp: .cfa -16 + ^\n", rel+1)
			fmt.Fprintf(sb, "STACK CFI %x .cfa: $rbp 16 +\n", rel+4)
		} else {
			fmt.Fprintf(sb, "STACK CFI %x .cfa: $rsp %d +\n", rel+4, f.locals+8)
		}
	case minidump.ArchX86:
		if g.fl.WinX86 {
			if f.kind == kindFP {
				fmt.Fprintf(sb, "STACK WIN 4 %x %x 3 0 %x 0 %x 0 1 $T0 $ebp = $eip $T0 4 + ^ = $ebp $T0 ^ = $esp $T0 8 + =\n",
					rel, f.size, f.params, f.locals)
			} else {
				fmt.Fprintf(sb, "STACK WIN 0 %x %x 3 0 %x %x %x 0 0 0\n", rel, f.size, f.params, f.saved, f.locals)
			}
			return
		}
		fmt.Fprintf(sb, "STACK CFI INIT %x %x .cfa: $esp 4 + .ra: .cfa -4 + ^\n", rel, f.size)
		if f.kind == kindFP {
			fmt.Fprintf(sb, "STACK CFI %x .cfa: $esp 8 + $ebp: .cfa -8 + ^\n", rel+1)
			fmt.Fprintf(sb, "STACK CFI %x .cfa: $ebp 8 +\n", rel+3)
		} else {
			fmt.Fprintf(sb, "STACK CFI %x .cfa: $esp %d +\n", rel+4, f.locals+4)
		}
	case minidump.ArchARM:
		fmt.Fprintf(sb, "STACK CFI INIT %x %x .cfa: sp 0 + .ra: lr\n", rel, f.size)
		switch f.kind {
		case kindFP:
			fmt.Fprintf(sb, "STACK CFI %x .cfa: sp 8 + .ra: .cfa -4 + ^ r7: .cfa -8 + ^\n", rel+2)
			fmt.Fprintf(sb, "STACK CFI %x .cfa: sp %d +\n", rel+4, f.locals+8)
		case kindNoFP:
			fmt.Fprintf(sb, "STACK CFI %x .cfa: sp 8 + .ra: .cfa -4 + ^ r4: .cfa -8 + ^\n", rel+2)
			fmt.Fprintf(sb, "STACK CFI %x .cfa: sp %d +\n", rel+4, f.locals+8)
		}
	case minidump.ArchARM64:
		fmt.Fprintf(sb, "STACK CFI INIT %x %x .cfa: sp 0 + .ra: x30\n", rel, f.size)
		switch f.kind {
		case kindFP:
			fmt.Fprintf(sb, "STACK CFI %x .cfa: sp 16 + .ra: .cfa -8 + ^ x29: .cfa -16 + ^\n", rel+4)
			fmt.Fprintf(sb, "STACK CFI %x .cfa: x29 16 +\n", rel+8)
		case kindNoFP:
			fmt.Fprintf(sb, "STACK CFI %x .cfa: sp %d + .ra: .cfa -8 + ^ x29: .cfa -16 + ^\n", rel+4, f.locals+16)
		}
	}
}

// patchStack rewrites the thread's stack descriptor as Flavor.Stack asks.
func (g *gen) patchStack(b *synth.Builder, dump []byte) ([]byte, error) {
	if g.fl.Stack == "" {
		return dump, nil
	}
	rva, size, ok := b.StreamLocation(synth.StreamThreadList)
	if !ok || size < 4+48 {
		return nil, fmt.Errorf("difftest: no thread list to patch")
	}
	e := rva + 4 // the first (only) thread
	desc := dump[e+24 : e+40]
	switch g.fl.Stack {
	case "rva0", "rva0-mem64":
		binary.LittleEndian.PutUint32(desc[12:], 0)
	case "empty":
		clear(desc)
	default:
		return nil, fmt.Errorf("difftest: unknown stack variant %q", g.fl.Stack)
	}
	return dump, nil
}
