package pdbsupplier

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// TestWalkX86FromPDB walks a synthetic x86 dump of crash.exe (its RSDS
// record, loaded at 0x400000) with crash.pdb alone in a symbol store:
// the thread stopped in RequestDump just after its prologue, inside the
// inlined IsRegistered (line 319 of crash_generation_client.cc, called
// from line 324); its FrameData program (.raSearch: the return address
// above the locals and saved registers) finds the caller, an address in
// main. Breakpad's minidump_stackwalk walks this dump with crash.sym
// (Breakpad's .sym of crash.pdb, which has no INLINE records) to the same
// physical frames: RequestDump, then main found by call frame info.
func TestWalkX86FromPDB(t *testing.T) {
	root := t.TempDir()
	put(t, filepath.Join(root, "crash.pdb", crashID, "crash.pdb"), corpusFile(t, "crash.pdb"))
	guid := [16]byte{0x9d, 0xd9, 0x49, 0x32, 0x40, 0x0c, 0x31, 0x49, 0x86, 0x10, 0xf4, 0xe4, 0xfb, 0x0b, 0x69, 0x36}
	b := synth.New(minidump.ArchX86, synth.Windows)
	b.AddModule(`C:\projects\crash.exe`, 0x400000, 0x9000).SetPDB70(guid, 1, `C:\projects\crash\Release\crash.pdb`)
	ctx := minidump.NewContext(minidump.ArchX86)
	ctx.Set("eip", 0x401011)
	ctx.Set("esp", 0x10000)
	ctx.Set("ebp", 0x10100)
	stack := make([]byte, 256)
	// At 0x1011 the innermost FrameData record is 0x100f's: 0xc bytes of
	// locals and 4 of saved registers lie above the return address.
	binary.LittleEndian.PutUint32(stack[0x10:], 0x402960) // into main (0x2910..0x2a6e)
	b.AddThread(1, ctx, 0x10000, stack)
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.dmp")
	os.WriteFile(path, data, 0o644)
	if p := os.Getenv("PDB_WALK_KEEP"); p != "" {
		os.WriteFile(p, data, 0o644)
	}
	d, err := minidump.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st, err := processor.Process(d, New(root), processor.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range st.Threads[0].Frames {
		got = append(got, f.Function+"|"+f.Trust.String())
	}
	// main's call at 0x402960 is in code inlined from std::basic_string's
	// constructor (cross-module ids of main.obj, resolved through
	// client_info.obj's exports).
	want := []string{
		"google_breakpad::CrashGenerationClient::IsRegistered|inline record",
		"google_breakpad::CrashGenerationClient::RequestDump(_EXCEPTION_POINTERS *,MDRawAssertionInfo *)|given as instruction pointer in context",
		"std::basic_string<wchar_t,std::char_traits<wchar_t>,std::allocator<wchar_t> >::_Tidy_init|inline record",
		"std::basic_string<wchar_t,std::char_traits<wchar_t>,std::allocator<wchar_t> >::{ctor}|inline record",
		"main|call frame info",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("frames:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if f := st.Threads[0].Frames[0]; f.Trust != walker.TrustInline || f.SourceLine != 319 {
		t.Errorf("frame 0: %+v", f)
	}
}
