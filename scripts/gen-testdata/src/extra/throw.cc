/* shapesdemo throw (gen.sh extra cases amd64-throw, x86-throw, arm-throw,
 * arm64-throw): an exception escapes a noexcept function. throw_deep
 * throws std::runtime_error, nothing catches it, and throw_guard is
 * noexcept. In its second phase the unwinder (_Unwind_RaiseException)
 * calls the C++ personality routine for throw_guard's frame, which finds
 * no call site for the ip and calls std::terminate itself (through
 * __cxa_call_terminate); the terminate handler, throw_terminate, calls
 * libstdc++'s verbose handler, which prints the exception and calls abort.
 * So SIGABRT is raised with libstdc++'s terminate code, the personality
 * routine, the unwinder and __cxa_throw on the stack, above the program's
 * own frames (none of which has a cleanup, so nothing is unwound before
 * the terminate). throw_terminate calls oracle_backtrace and then the
 * verbose handler from one call site, so libgcc's backtrace (arm) has the
 * frames of the abort from throw_terminate on. */
#include <cxxabi.h>
#include <exception>
#include <stdexcept>
#include "shapes.h"

volatile int throw_depth;

static void (*volatile throw_then[2])() = {oracle_backtrace, __gnu_cxx::__verbose_terminate_handler};

__attribute__((noinline)) static void throw_terminate() {
	for (volatile int i = 0; i < 2; i++) /* volatile: one call site, not unrolled */
		throw_then[i]();
}

__attribute__((noinline)) void throw_deep(int n) {
	throw_depth = n;
	if (n > 0)
		throw std::runtime_error("nobody catches this");
}

__attribute__((noinline)) void throw_mid(int n) {
	throw_deep(n + 1);
	throw_depth += 2; /* not a tail call */
}

__attribute__((noinline)) void throw_guard(int n) noexcept {
	throw_mid(n * 2);
	throw_depth += 3;
}

extern "C" int throw_main(int argc) {
	std::set_terminate(throw_terminate);
	throw_guard(argc);
	return throw_depth;
}
