package minidump_test

import (
	"fmt"
	"log"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Open a dump, print Breakpad's header lines and read the crashed thread's
// stack pointer target from the captured memory.
func Example() {
	f, err := minidump.Open("crash.dmp")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	si, err := f.SystemInfo()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("Operating system:", si.OS(), si.OSVersion())
	fmt.Println("CPU:", si.CPU(), si.CPUInfo(), si.CPUCount())
	if ex, err := f.Exception(); err == nil {
		fmt.Printf("Crash reason: %s at %#x\n", minidump.CrashReason(si, ex), minidump.CrashAddress(si, ex))
	}
	threads, _ := f.Threads() // partial results come with the error
	mem, _ := f.Memory()
	for _, t := range threads {
		if t.Context == nil {
			continue
		}
		sp, _ := t.Context.SP()
		word := make([]byte, t.Context.WordSize())
		if err := mem.ReadMemory(sp, word); err == nil {
			fmt.Printf("thread %#x: [sp] = % x\n", t.ID, word)
		}
	}
}
