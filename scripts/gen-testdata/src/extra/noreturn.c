/* shapesdemo noreturn: calls whose return address is not in the caller (gen.sh extra cases
 * amd64-noreturn, x86-noreturn, arm-noreturn, arm64-noreturn): nr_fail
 * and nr_report end with a call of a noreturn function, the last
 * instruction of each, so the return address is the first byte past the
 * function (built -falign-functions=1 in source order: it is the next
 * function's start), and only the return address minus one names the
 * caller and its CFI row. nr_tail's call of nr_report is a sibling call
 * (a jump): its frame is gone, and the walk goes from nr_report to
 * nr_outer. nr_die faults with a NULL store. */
#include "shapes.h"

int *volatile nr_ptr;
volatile int nr_seen;

__attribute__((noinline, noreturn)) void nr_die(int code) {
	*nr_ptr = code;
	__builtin_trap();
}

__attribute__((noinline, noreturn)) void nr_fail(int code) {
	nr_seen = code;
	nr_die(code + 1);
}

__attribute__((noinline)) void nr_next(void) {
	nr_seen++;
}

__attribute__((noinline)) int nr_report(int code) {
	if (code < 0)
		return -code;
	nr_seen = code * 3;
	nr_fail(code);
}

__attribute__((noinline)) void nr_next2(void) {
	nr_seen--;
}

__attribute__((noinline)) int nr_tail(int code) {
	nr_seen += code;
	return nr_report(code + 5); /* sibling call: a jump */
}

__attribute__((noinline)) int nr_outer(int code) {
	int r = nr_tail(code * 2);
	return r + nr_seen; /* not a tail call */
}

int noreturn_main(int argc) {
	nr_next();
	nr_next2();
	return nr_outer(argc) + 1; /* not a tail call */
}
