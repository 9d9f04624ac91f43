/* Deep recursion, then a crash: many frames, a stack of tens of KiB. */
#include "crash.h"

__attribute__((noinline)) static int recurse(int *p, int depth, volatile char *prev) {
	volatile char pad[48];
	pad[0] = (char)depth;
	pad[47] = prev ? prev[0] : 0;
	if (depth == 0) {
		*p = pad[0] + pad[47]; /* SIGSEGV */
		return 0;
	}
	int r = recurse(p, depth - 1, pad);
	return r + pad[depth % 48];
}

__attribute__((noinline)) int case_recursion(int n) {
	return recurse(crash_ptr, 200 + n, 0) + 1;
}
