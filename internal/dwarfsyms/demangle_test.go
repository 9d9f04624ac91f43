package dwarfsyms

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/ianlancetaylor/demangle"
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

// knownDiffs: names where Demangle still differs from GNU's text (from
// GNU c++filt 2.40), because github.com/ianlancetaylor/demangle decides
// while parsing what a substitution refers to, which no rewriting of its
// AST can undo.
var knownDiffs = []struct{ mangled, gnu, why string }{
	// "sr <qualifier>+ E <name>" without N: GNU (d_prefix without
	// substitutions) and LLVM (parseSimpleId) add no substitution
	// candidate for a qualifier level with template arguments;
	// demangle's unresolvedName adds its source name, so every later
	// S<n>_ refers to one entry too early. 241 PUBLIC names of
	// libLLVM-14 and -15.
	{"_ZN4llvm10checkedAddIiEENSt9enable_ifIXsr3std9is_signedIT_EE5valueENS_8OptionalIS2_EEE4typeES2_S2_",
		"std::enable_if<std::is_signed<int>::value, llvm::Optional<int> >::type llvm::checkedAdd<int>(int, int)",
		"sr qualifier substitution"},
	{"_ZN4llvm4yaml7yamlizeIhEENSt9enable_ifIXsr16has_ScalarTraitsIT_EE5valueEvE4typeERNS0_2IOERS3_bRNS0_12EmptyContextE",
		"std::enable_if<has_ScalarTraits<unsigned char>::value, void>::type llvm::yaml::yamlize<unsigned char>(llvm::yaml::IO&, unsigned char&, bool, llvm::yaml::EmptyContext&)",
		"sr qualifier substitution"},
	// A reference to a template parameter reached through a
	// substitution: GNU's printer resolves it in the template scope
	// where that parameter node was first printed under a reference
	// (d_print_comp's saved scopes), here call_once's, not
	// _Prepare_execution's; demangle rebinds it to the template in
	// force where the substitution is used. libheif (2 names), libicuuc
	// (1).
	{"_ZZNSt9once_flag18_Prepare_executionC4IZSt9call_onceIRFvvEJEEvRS_OT_DpOT0_EUlvE_EERS6_ENUlvE_4_FUNEv",
		"std::once_flag::_Prepare_execution::_Prepare_execution<std::call_once<void (&)()>(std::once_flag&, void (&)())::{lambda()#1}>(void (&)())::{lambda()#1}::_FUN()",
		"saved template scope"},
	{"_ZZNSt9once_flag18_Prepare_executionC4IZSt9call_onceIMSt6threadFvvEJPS3_EEvRS_OT_DpOT0_EUlvE_EERS8_ENUlvE_4_FUNEv",
		"std::once_flag::_Prepare_execution::_Prepare_execution<std::call_once<void (std::thread::*)(), std::thread*>(std::once_flag&, void (std::thread::*&&)(), std::thread*&&)::{lambda()#1}>(void (std::thread::*&)())::{lambda()#1}::_FUN()",
		"saved template scope"},
}

// TestDemangleKnownDiffs keeps knownDiffs true: each still differs (when
// one stops differing, move it to gnuTable).
func TestDemangleKnownDiffs(t *testing.T) {
	for _, tc := range knownDiffs {
		got, err := Demangle(tc.mangled)
		if err != nil {
			t.Errorf("%s: %v", tc.mangled, err)
			continue
		}
		if got == tc.gnu {
			t.Errorf("%s (%s) now demangles as GNU does: move it to gnuTable", tc.mangled, tc.why)
		}
	}
}

func TestDemangle(t *testing.T) {
	for _, tc := range gnuTable {
		if got, err := Demangle(tc.mangled); err != nil || got != tc.want {
			t.Errorf("%s:\n got %q, %v\nwant %q", tc.mangled, got, err, tc.want)
		}
	}
}

// TestDemangleAgainstCxxfilt checks gnuTable's and knownDiffs' texts with GNU c++filt,
// when it is installed.
func TestDemangleAgainstCxxfilt(t *testing.T) {
	names := make([]string, len(gnuTable))
	for i, tc := range gnuTable {
		names[i] = tc.mangled
	}
	for _, tc := range knownDiffs {
		names = append(names, tc.mangled)
	}
	for i, w := range cxxfilt(t, names) {
		want := ""
		if i < len(gnuTable) {
			want = gnuTable[i].want
		} else {
			want = knownDiffs[i-len(gnuTable)].gnu
		}
		if w != want {
			t.Errorf("%s: c++filt prints\n%q, the table has\n%q", names[i], w, want)
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

// FuzzDemangle: the empty-pack rewriting changes only spaces and commas,
// on any name demangle parses, and Demangle fails exactly where demangle
// does.
func FuzzDemangle(f *testing.F) {
	for _, tc := range gnuTable {
		f.Add(tc.mangled)
	}
	for _, tc := range knownDiffs {
		f.Add(tc.mangled)
	}
	opts := []demangle.Option{demangle.MaxLength(16)}
	strip := strings.NewReplacer(" ", "", ",", "")
	f.Fuzz(func(t *testing.T, name string) {
		if len(name) > maxDemangleInput {
			return
		}
		_, err := Demangle(name, opts...)
		a, astErr := demangle.ToAST(name, opts...)
		if (err == nil) != (astErr == nil) {
			t.Fatalf("%q: Demangle error %v, demangle.ToAST error %v", name, err, astErr)
		}
		if astErr != nil {
			return
		}
		before := demangle.ASTToString(a, opts...)
		if len(before) > 1<<14 {
			return // may be cut at MaxLength
		}
		after := demangle.ASTToString(closeAfterEmptyPack(a, opts), opts...)
		if strip.Replace(before) != strip.Replace(after) {
			t.Fatalf("%q: %q became %q", name, before, after)
		}
	})
}
