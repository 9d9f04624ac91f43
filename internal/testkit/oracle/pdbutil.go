package oracle

import (
	"bufio"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// PDBProc is a procedure record (S_GPROC32, S_LPROC32 or their _ID forms)
// as llvm-pdbutil lists it, its address turned into an image RVA through
// the PDB's section headers.
type PDBProc struct {
	Kind string // S_GPROC32, S_LPROC32, S_GPROC32_ID, S_LPROC32_ID
	Name string
	RVA  uint32
	Size uint32

	section int // the record's section number until RVA is resolved
}

var (
	pdbutilProc    = regexp.MustCompile("^\\s*\\d+ \\| (S_[GL]PROC32(?:_ID)?) \\[size = \\d+\\] `(.*)`$")
	pdbutilProcLoc = regexp.MustCompile(`addr = ([0-9]+):([0-9]+), code size = ([0-9]+)`)
	pdbutilSection = regexp.MustCompile(`^\s*SECTION HEADER #(\d+)$`)
	pdbutilVA      = regexp.MustCompile(`^\s*([0-9A-F]+) virtual address$`)
)

// PDBProcs runs `llvm-pdbutil dump -symbols -section-headers` on the PDB
// at path and returns its procedure records, or skips the test when
// llvm-pdbutil (Debian package llvm) is not installed.
func PDBProcs(tb testing.TB, path string) []PDBProc {
	tb.Helper()
	bin, err := exec.LookPath("llvm-pdbutil")
	if err != nil {
		tb.Skip("llvm-pdbutil not installed (Debian package llvm)")
	}
	out, err := exec.Command(bin, "dump", "-symbols", "-section-headers", path).Output()
	if err != nil {
		tb.Fatalf("llvm-pdbutil dump %s: %v", path, err)
	}
	procs, err := parsePDBProcs(string(out))
	if err != nil {
		tb.Fatalf("llvm-pdbutil dump %s: %v", path, err)
	}
	return procs
}

// parsePDBProcs reads llvm-pdbutil's listing: procedure records, whose
// addr line follows their header line, and the section headers (each
// section's virtual address), listed after the symbols.
func parsePDBProcs(out string) ([]PDBProc, error) {
	sectionVA := map[int]uint32{}
	section := 0
	var procs []PDBProc
	var open *PDBProc
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := pdbutilSection.FindStringSubmatch(line); m != nil {
			section, _ = strconv.Atoi(m[1])
		} else if m := pdbutilVA.FindStringSubmatch(line); m != nil && section > 0 {
			v, _ := strconv.ParseUint(m[1], 16, 32)
			sectionVA[section] = uint32(v)
		} else if m := pdbutilProc.FindStringSubmatch(line); m != nil {
			procs = append(procs, PDBProc{Kind: m[1], Name: m[2]})
			open = &procs[len(procs)-1]
		} else if m := pdbutilProcLoc.FindStringSubmatch(line); m != nil && open != nil {
			off, _ := strconv.ParseUint(m[2], 10, 32)
			size, _ := strconv.ParseUint(m[3], 10, 32)
			open.section, _ = strconv.Atoi(m[1])
			open.RVA, open.Size = uint32(off), uint32(size)
			open = nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for i := range procs {
		va, ok := sectionVA[procs[i].section]
		if !ok {
			return nil, fmt.Errorf("procedure %s in section %d: no such section header", procs[i].Name, procs[i].section)
		}
		procs[i].RVA += va
	}
	return procs, nil
}
