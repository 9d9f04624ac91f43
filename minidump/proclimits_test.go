package minidump_test

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// The text is /proc/self/limits as Linux 6.1 writes it (fs/proc/base.c:
// "%-25s %-20s %-20s %-10s").
const procLimitsText = `Limit                     Soft Limit           Hard Limit           Units     
Max cpu time              unlimited            unlimited            seconds   
Max file size             unlimited            unlimited            bytes     
Max stack size            8388608              unlimited            bytes     
Max open files            1024                 524288               files     
Max realtime timeout      unlimited            unlimited            us        
`

func TestProcLimits(t *testing.T) {
	data, err := synth.New(minidump.ArchAMD64, synth.Linux).AddStream(0x4d7a0003, []byte(procLimitsText)).Bytes()
	if err != nil {
		t.Fatal(err)
	}
	f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.ProcLimits()
	if err != nil {
		t.Fatal(err)
	}
	inf := minidump.Limit{Unlimited: true}
	want := []minidump.ProcLimit{
		{"Max cpu time", inf, inf, "seconds"},
		{"Max file size", inf, inf, "bytes"},
		{"Max stack size", minidump.Limit{Value: 8388608}, inf, "bytes"},
		{"Max open files", minidump.Limit{Value: 1024}, minidump.Limit{Value: 524288}, "files"},
		{"Max realtime timeout", inf, inf, "us"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
}
