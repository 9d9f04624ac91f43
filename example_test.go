package stackwalk_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	stackwalk "github.com/minidump-stackwalk/minidump-stackwalk"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/report"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// Walk a dump with the symbols of a Breakpad symbol store and print
// Breakpad's human report of the crashed thread (minidump_stackwalk -c).
// The dump is a crash of a gcc-built program (testdata/cases.txt); the
// frames are Breakpad's (testdata/oracle/amd64-fp.breakpad.txt), which
// walks on past _start into one junk frame our walk stops short of
// (package processor's doc); the lines on the faulting instruction after
// the crash address are ours (package crashinfo; objdump reads the same
// instruction as mov DWORD PTR [rdi],esi in crashinfo's tests).
func Example() {
	d, err := stackwalk.Open("testdata/dumps/amd64-fp.dmp")
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	st, err := d.Process(symcompress.NewDirSupplier("testdata/symbols"), processor.Options{})
	if err != nil {
		log.Fatal(err)
	}
	st.DemangleNames() // as the command does unless --no-demangle
	opts := report.DefaultHumanOptions
	opts.RequestingThreadOnly = true
	var out strings.Builder
	if err := report.WriteHuman(&out, st, opts); err != nil {
		log.Fatal(err)
	}
	// Breakpad's OS version line ends in a space, which an Output comment
	// cannot hold: print the lines without their trailing spaces.
	for _, line := range strings.Split(out.String(), "\n") {
		fmt.Println(strings.TrimRight(line, " "))
	}
	// Output:
	// Operating system: Linux
	//                   0.0.0
	// CPU: amd64
	//      family 0 model 0 stepping 0
	//      1 CPU
	//
	// GPU: UNKNOWN
	//
	// Crash reason:  SIGSEGV /SEGV_MAPERR
	// Crash address: 0x0
	//     ** Null pointer detected with offset: 0x0000000000000000
	// Crashing instruction: `mov dword [rdi], esi`
	// Memory accessed by instruction:
	//   0. Address: 0x0000000000000000
	//      Size: 4
	//      Access type: Write
	// No instruction pointer update by instruction
	// Process uptime: not available
	//
	// Thread 0 (crashed)
	//  0  crashdemo!fp_leaf [case_fp.c : 5 + 0x0]
	//     rax = 0x0000000000401540   rdx = 0x0000000000000002
	//     rcx = 0x0000000000000000   rbx = 0x00007ffcdbf29fa0
	//     rsi = 0x0000000000000004   rdi = 0x0000000000000000
	//     rbp = 0x00007ffcdbf29db0   rsp = 0x00007ffcdbf29da8
	//      r8 = 0x0000000000000000    r9 = 0x0000000000000000
	//     r10 = 0x0000000000000004   r11 = 0x0000000000000206
	//     r12 = 0x00007ffcdbf29f88   r13 = 0x0000000000000001
	//     r14 = 0x0000000000000001   r15 = 0x0000000000000002
	//     rip = 0x00000000004018f0
	//     Found by: given as instruction pointer in context
	//  1  crashdemo!fp_mid [case_fp.c : 10 + 0x5]
	//     rbx = 0x00007ffcdbf29fa0   rbp = 0x00007ffcdbf29db0
	//     rsp = 0x00007ffcdbf29db0   r12 = 0x00007ffcdbf29f88
	//     r13 = 0x0000000000000001   r14 = 0x0000000000000001
	//     r15 = 0x0000000000000002   rip = 0x000000000040190e
	//     Found by: call frame info
	//  2  crashdemo!case_fp [case_fp.c : 15 + 0x5]
	//     rbx = 0x00007ffcdbf29fa0   rbp = 0x00007ffcdbf29dc0
	//     rsp = 0x00007ffcdbf29dc0   r12 = 0x00007ffcdbf29f88
	//     r13 = 0x0000000000000001   r14 = 0x0000000000000001
	//     r15 = 0x0000000000000002   rip = 0x0000000000401932
	//     Found by: call frame info
	//  3  crashdemo!__libc_start_call_main + 0x64
	//     rbx = 0x00007ffcdbf29fa0   rbp = 0x00000000004b9530
	//     rsp = 0x00007ffcdbf29dd0   r12 = 0x00007ffcdbf29f88
	//     r13 = 0x0000000000000001   r14 = 0x0000000000000001
	//     r15 = 0x0000000000000002   rip = 0x0000000000402594
	//     Found by: call frame info
	//  4  crashdemo!__libc_start_main_impl + 0x8a0
	//     rbx = 0x00007ffcdbf29fa0   rbp = 0x00000000004b9530
	//     rsp = 0x00007ffcdbf29e70   r12 = 0x00007ffcdbf29f88
	//     r13 = 0x0000000000000001   r14 = 0x0000000000000001
	//     r15 = 0x0000000000000002   rip = 0x0000000000403c90
	//     Found by: call frame info
	//  5  crashdemo!_start + 0x21
	//     rbx = 0x0000000000000000   rbp = 0x0000000000000000
	//     rsp = 0x00007ffcdbf29f70   r12 = 0x0000000000000000
	//     r13 = 0x0000000000000000   r14 = 0x0000000000000000
	//     r15 = 0x0000000000000000   rip = 0x00000000004016b1
	//     Found by: call frame info
	//
	// Loaded modules:
	// 0x00400000 - 0x004bffff  crashdemo  ???  (main)
	// 0x7f621e96f000 - 0x7f621e970fff  linux-gate.so  ???
}

// Print the JSON report in rust-minidump's schema (minidump-stackwalk
// --json), then read a few of its fields back.
func Example_json() {
	d, err := stackwalk.Open("testdata/dumps/amd64-fp.dmp")
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	st, err := d.Process(symcompress.NewDirSupplier("testdata/symbols"), processor.Options{})
	if err != nil {
		log.Fatal(err)
	}
	var out bytes.Buffer
	if err := report.WriteStateJSON(&out, st, report.JSONOptions{}, false); err != nil {
		log.Fatal(err)
	}

	var doc struct {
		Status    string
		CrashInfo struct {
			Type    string
			Address string
		} `json:"crash_info"`
		CrashingThread struct {
			Frames []struct {
				Function *string
				Trust    string
			}
		} `json:"crashing_thread"`
		Modules []struct {
			Filename      string
			LoadedSymbols bool `json:"loaded_symbols"`
		}
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		log.Fatal(err)
	}
	fmt.Println(doc.Status, doc.CrashInfo.Type, doc.CrashInfo.Address)
	for _, f := range doc.CrashingThread.Frames {
		fmt.Println(*f.Function, f.Trust)
	}
	for _, m := range doc.Modules {
		fmt.Println(m.Filename, "symbols loaded:", m.LoadedSymbols)
	}
	// Output:
	// OK SIGSEGV / SEGV_MAPERR 0x0000000000000000
	// fp_leaf context
	// fp_mid cfi
	// case_fp cfi
	// __libc_start_call_main cfi
	// __libc_start_main_impl cfi
	// _start cfi
	// crashdemo symbols loaded: true
	// linux-gate.so symbols loaded: false
}

// oneFile is a symbol supplier of one's own: it serves a single symbol file
// for the module whose debug file is named debugFile (ELF modules' debug
// files are the paths the program was loaded from) and says it has nothing
// for the others.
type oneFile struct {
	debugFile, path string
}

func (s oneFile) Symbols(m symfile.ModuleKey) (*symfile.File, error) {
	fmt.Println("asked for", m.DebugFile, m.DebugID)
	if filepath.Base(m.DebugFile) != s.debugFile {
		return nil, fmt.Errorf("%s: %w", m.DebugFile, symfile.ErrNotFound)
	}
	return symcompress.Open(s.path)
}

// Walk with a symbol supplier of one's own (any symfile.Supplier: a
// database, an object store) and print the brief report (-b). The
// processor asks for each module's symbols at most once.
func Example_customSupplier() {
	d, err := stackwalk.Open("testdata/dumps/amd64-fp.dmp")
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	sup := oneFile{
		debugFile: "crashdemo",
		path:      filepath.Join("testdata", "symbols", "crashdemo", "D83F6001E70265BE29AD592DD70C2F4F0", "crashdemo.sym"),
	}
	st, err := d.Process(sup, processor.Options{Workers: 1})
	if err != nil {
		log.Fatal(err)
	}
	if err := report.WriteBrief(os.Stdout, st); err != nil {
		log.Fatal(err)
	}
	// Output:
	// asked for /tmp/gen-testdata/amd64/crashdemo D83F6001E70265BE29AD592DD70C2F4F0
	// Thread 0 (crashed)
	//  0  crashdemo!fp_leaf [case_fp.c : 5 + 0x0]
	//  1  crashdemo!fp_mid [case_fp.c : 10 + 0x5]
	//  2  crashdemo!case_fp [case_fp.c : 15 + 0x5]
	//  3  crashdemo!__libc_start_call_main + 0x64
	//  4  crashdemo!__libc_start_main_impl + 0x8a0
	//  5  crashdemo!_start + 0x21
}

// Read single streams of a minidump (its system info and thread list)
// without walking anything, through package minidump's accessors. Breakpad's
// minidump_dump prints the same thread ids (0x660d, ...), stacks and rsp.
func Example_readStream() {
	d, err := stackwalk.Open("testdata/dumps/amd64-threads.dmp")
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	si, err := d.Minidump.SystemInfo()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(si.OS(), si.CPU(), si.CPUCount(), "CPUs")
	threads, err := d.Minidump.Threads()
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range threads {
		sp, _ := t.Context.SP()
		fmt.Printf("thread %d: stack %#x+%#x, sp %#x\n", t.ID, t.Stack.Start, t.Stack.Size, sp)
	}
	// Output:
	// Linux amd64 1 CPUs
	// thread 26125: stack 0x7ffff6ff41c0+0x10000, sp 0x7ffff6ff4248
	// thread 26118: stack 0x7fffffffe450+0xbb0, sp 0x7fffffffe4d0
	// thread 26123: stack 0x7ffff7ff60c0+0xf40, sp 0x7ffff7ff6140
	// thread 26124: stack 0x7ffff77f5150+0x10000, sp 0x7ffff77f51d0
}
