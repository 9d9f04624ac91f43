/* abort(): SIGABRT raised inside libc. */
#include <stdlib.h>
#include <stdio.h>
#include "crash.h"

__attribute__((noinline)) static void check_invariant(int n) {
	if (n < 1000) {
		fprintf(stderr, "invariant failed: %d\n", n);
		abort();
	}
}

__attribute__((noinline)) int case_abort(int n) {
	check_invariant(n);
	return n;
}
