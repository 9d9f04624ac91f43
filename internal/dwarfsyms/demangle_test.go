package dwarfsyms

import "testing"

// TestDemangle: names where GNU's __cxa_demangle (the oracle: the PUBLIC
// and INLINE_ORIGIN records Google's dump_syms wrote for libicuuc,
// libicui18n and a -gdwarf-4 build of dumpsyms/testdata/src/shapes.cc)
// differs from demangle.ToString.
func TestDemangle(t *testing.T) {
	for _, tc := range []struct{ mangled, want string }{
		{"_ZNSt15__uniq_ptr_dataIN3geo6CircleESt14default_deleteIS1_ELb1ELb1EECI2St15__uniq_ptr_implIS1_S3_EEPS1_",
			"std::__uniq_ptr_data<geo::Circle, std::default_delete<geo::Circle>, true, true>::__uniq_ptr_impl(geo::Circle*)"},
		{"_ZNSt15__uniq_ptr_dataIN3geo5ShapeESt14default_deleteIS1_ELb1ELb1EECI2St15__uniq_ptr_implIS1_S3_EIS2_INS0_6CircleEEEEPS1_OT_",
			"std::__uniq_ptr_data<geo::Shape, std::default_delete<geo::Shape>, true, true>::__uniq_ptr_impl<std::default_delete<geo::Circle> >(geo::Shape*, std::default_delete<geo::Circle>&&)"},
		{"_ZN6icu_726number4impl10MicroPropsUt_D2Ev", "icu_72::number::impl::MicroProps::{unnamed type#1}::~MicroProps()"},
		{"_ZN6icu_728numparse4impl16NumberParserImplUt_C2Ev", "icu_72::numparse::impl::NumberParserImpl::{unnamed type#1}::NumberParserImpl()"},
		{"_ZN3foo3barEv", "foo::bar()"},
	} {
		if got, err := Demangle(tc.mangled); err != nil || got != tc.want {
			t.Errorf("%s:\n got %q, %v\nwant %q", tc.mangled, got, err, tc.want)
		}
	}
}
