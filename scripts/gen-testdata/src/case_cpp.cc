// C++: namespaces, a template, a virtual call and a lambda on the way to
// the crash, so symbol names need demangling.
#include "crash.h"

namespace demo {

struct Shape {
	virtual ~Shape() {}
	virtual int area(int *out) const = 0;
};

struct Square : Shape {
	int side;
	explicit Square(int s) : side(s) {}
	__attribute__((noinline)) int area(int *out) const override {
		*out = side * side; // SIGSEGV
		return side;
	}
};

template <typename T, typename F>
__attribute__((noinline)) int apply_all(const T &shape, F f) {
	return f(shape) + 1;
}

} // namespace demo

extern "C" __attribute__((noinline)) int case_cpp(int n) {
	demo::Square sq(n + 2);
	const demo::Shape &s = sq;
	return demo::apply_all(s, [](const demo::Shape &x) { return x.area(crash_ptr) * 2; });
}
