package difftest

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
)

// framelessUnderRecord reports whether c's crash is in a frameless function
// without CFI (it pushed LR and kept its caller's frame pointer) whose
// caller keeps a frame record and has CFI: the record the frame-pointer
// register points at is the caller's, and only the caller's CFI shows it.
func framelessUnderRecord(c *Case) bool {
	if len(c.chain) < 2 {
		return false
	}
	f0, f1 := c.chain[0], c.chain[1]
	noCFI := f0.fn.sym != symFuncCFI || !f0.fn.mod.hasSyms
	return !f0.atPro && f0.fn.kind == kindNoFP && noCFI &&
		f1.fn.kind == kindFP && f1.fn.sym == symFuncCFI && f1.fn.mod.hasSyms
}

// TestFramelessUnderRecord: on 32-bit ARM, a crash in a frameless function
// without CFI under a caller that keeps a frame record must not skip the
// caller: the record at r7/r11 is the caller's, its return address the
// caller's caller's. Breakpad scans and finds the caller unless a stale word
// comes first; the default walk takes the word whose CFI lands on the
// record. Over the cases of that shape in seeds 1-150 of each 32-bit ARM
// flavor, the default walk must find the caller wherever Breakpad does,
// and recover at least as many true frames.
func TestFramelessUnderRecord(t *testing.T) {
	bp, us := oracle.Require(t, oracle.Stackwalk), ourBinary(t)
	for _, name := range []string{"android-arm", "android-arm-thumb", "ios-arm"} {
		fl, _ := FlavorByName(name)
		var n, oursCaller, bpCaller int
		for seed := int64(1); seed <= 150; seed++ {
			c, err := Generate(fl, seed)
			if err != nil {
				t.Fatal(err)
			}
			if !framelessUnderRecord(c) {
				continue
			}
			n++
			dumpPath, symRoot, err := WriteCase(c, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			bpOut, err := RunMachine(bp, dumpPath, symRoot)
			if err != nil {
				t.Fatal(err)
			}
			ourOut, err := RunMachine(us, dumpPath, symRoot)
			if err != nil {
				t.Fatal(err)
			}
			bpRec, ourRec := Recovered(c.Truth, Frames(bpOut)), Recovered(c.Truth, Frames(ourOut))
			if bpRec >= 2 {
				bpCaller++
			}
			if ourRec >= 2 {
				oursCaller++
			}
			if ourRec < bpRec || (bpRec >= 2 && ourRec < 2) {
				t.Errorf("%s seed %d: %d true frames, Breakpad %d:\ntruth %q\nours  %q", name, seed, ourRec, bpRec, c.Truth, Frames(ourOut))
			}
		}
		if n == 0 {
			t.Errorf("%s: no case of that shape in seeds 1-150", name)
		}
		t.Logf("%s: %d cases; the caller found in %d, by Breakpad in %d", name, n, oursCaller, bpCaller)
	}
}
