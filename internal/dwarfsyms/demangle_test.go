package dwarfsyms

import (
	"os/exec"
	"strings"
	"testing"
)

// gnuTable: names where GNU's __cxa_demangle differs from
// demangle.ToString, with GNU's text. The first four are from the PUBLIC
// and INLINE_ORIGIN records Google's dump_syms wrote for libicuuc,
// libicui18n and a -gdwarf-4 build of dumpsyms/testdata/src/shapes.cc;
// the rest were printed by GNU c++filt 2.40 (binutils, Debian 12), which
// TestDemangleAgainstCxxfilt asks again when it is installed.
var gnuTable = []struct{ mangled, want string }{
	// Inheriting constructors and constructors of unnamed types: named
	// after the last source name read.
	{"_ZNSt15__uniq_ptr_dataIN3geo6CircleESt14default_deleteIS1_ELb1ELb1EECI2St15__uniq_ptr_implIS1_S3_EEPS1_",
		"std::__uniq_ptr_data<geo::Circle, std::default_delete<geo::Circle>, true, true>::__uniq_ptr_impl(geo::Circle*)"},
	{"_ZNSt15__uniq_ptr_dataIN3geo5ShapeESt14default_deleteIS1_ELb1ELb1EECI2St15__uniq_ptr_implIS1_S3_EIS2_INS0_6CircleEEEEPS1_OT_",
		"std::__uniq_ptr_data<geo::Shape, std::default_delete<geo::Shape>, true, true>::__uniq_ptr_impl<std::default_delete<geo::Circle> >(geo::Shape*, std::default_delete<geo::Circle>&&)"},
	{"_ZN6icu_726number4impl10MicroPropsUt_D2Ev", "icu_72::number::impl::MicroProps::{unnamed type#1}::~MicroProps()"},
	{"_ZN6icu_728numparse4impl16NumberParserImplUt_C2Ev", "icu_72::numparse::impl::NumberParserImpl::{unnamed type#1}::NumberParserImpl()"},
	{"_ZN3foo3barEv", "foo::bar()"},

	// Empty packs: a trailing one leaves ">>" unseparated; one before
	// other arguments keeps its commas. (libLLVM-14 and -15.)
	{"_Z1fI1AIiEJEEvv", "void f<A<int>>()"},
	{"_Z1fI1AIiEJEJEEvv", "void f<A<int>>()"},
	{"_ZN1BI1AIiEJEE1gEv", "B<A<int>>::g()"},
	{"_Z1fI1AI1CIiEJEEEvv", "void f<A<C<int>> >()"},
	{"_Z1fI1AIiEJiEEvv", "void f<A<int>, int>()"},
	{"_Z1fIJEEvv", "void f<>()"},
	{"_Z1fIJE1AIiEEvv", "void f<, A<int> >()"},
	{"_Z1fIiJEiEvv", "void f<int, , int>()"},
	{"_Z1fIJEJEiEvv", "void f<, , int>()"},
	{"_Z1fIiJEEvv", "void f<int>()"},
	{"_ZN4llvm11PassBuilder15parseModulePassERNS_11PassManagerINS_6ModuleENS_15AnalysisManagerIS2_JEEEJEEERKNS0_15PipelineElementE",
		"llvm::PassBuilder::parseModulePass(llvm::PassManager<llvm::Module, llvm::AnalysisManager<llvm::Module>>&, llvm::PassBuilder::PipelineElement const&)"},
	{"_ZNSt6vectorISt10unique_ptrIN4llvm6detail11PassConceptINS1_6ModuleENS1_15AnalysisManagerIS4_JEEEJEEESt14default_deleteIS7_EESaISA_EE17_M_realloc_insertIJSA_EEEvN9__gnu_cxx17__normal_iteratorIPSA_SC_EEDpOT_",
		"void std::vector<std::unique_ptr<llvm::detail::PassConcept<llvm::Module, llvm::AnalysisManager<llvm::Module>>, std::default_delete<llvm::detail::PassConcept<llvm::Module, llvm::AnalysisManager<llvm::Module>> > >, std::allocator<std::unique_ptr<llvm::detail::PassConcept<llvm::Module, llvm::AnalysisManager<llvm::Module>>, std::default_delete<llvm::detail::PassConcept<llvm::Module, llvm::AnalysisManager<llvm::Module>> > > > >::_M_realloc_insert<std::unique_ptr<llvm::detail::PassConcept<llvm::Module, llvm::AnalysisManager<llvm::Module>>, std::default_delete<llvm::detail::PassConcept<llvm::Module, llvm::AnalysisManager<llvm::Module>> > > >(__gnu_cxx::__normal_iterator<std::unique_ptr<llvm::detail::PassConcept<llvm::Module, llvm::AnalysisManager<llvm::Module>>, std::default_delete<llvm::detail::PassConcept<llvm::Module, llvm::AnalysisManager<llvm::Module>> > >*, std::vector<std::unique_ptr<llvm::detail::PassConcept<llvm::Module, llvm::AnalysisManager<llvm::Module>>, std::default_delete<llvm::detail::PassConcept<llvm::Module, llvm::AnalysisManager<llvm::Module>> > >, std::allocator<std::unique_ptr<llvm::detail::PassConcept<llvm::Module, llvm::AnalysisManager<llvm::Module>>, std::default_delete<llvm::detail::PassConcept<llvm::Module, llvm::AnalysisManager<llvm::Module>> > > > > >, std::unique_ptr<llvm::detail::PassConcept<llvm::Module, llvm::AnalysisManager<llvm::Module>>, std::default_delete<llvm::detail::PassConcept<llvm::Module, llvm::AnalysisManager<llvm::Module>> > >&&)"},
}

func TestDemangle(t *testing.T) {
	for _, tc := range gnuTable {
		if got, err := Demangle(tc.mangled); err != nil || got != tc.want {
			t.Errorf("%s:\n got %q, %v\nwant %q", tc.mangled, got, err, tc.want)
		}
	}
}

// TestDemangleAgainstCxxfilt checks gnuTable's texts with GNU c++filt,
// when it is installed.
func TestDemangleAgainstCxxfilt(t *testing.T) {
	names := make([]string, len(gnuTable))
	for i, tc := range gnuTable {
		names[i] = tc.mangled
	}
	for i, w := range cxxfilt(t, names) {
		if w != gnuTable[i].want {
			t.Errorf("%s: c++filt prints\n%q, the table has\n%q", names[i], w, gnuTable[i].want)
		}
	}
}

// cxxfilt demangles names with GNU c++filt, or skips the test.
func cxxfilt(t *testing.T, names []string) []string {
	t.Helper()
	bin, err := exec.LookPath("c++filt")
	if err != nil {
		t.Skip("c++filt not installed")
	}
	cmd := exec.Command(bin)
	cmd.Stdin = strings.NewReader(strings.Join(names, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(names) {
		t.Fatalf("c++filt printed %d lines for %d names", len(lines), len(names))
	}
	return lines
}
