/* Built -O0. */
#include "crash.h"

static int o0_leaf(int *p, int n) {
	int local = n * 5;
	*p = local; /* SIGSEGV */
	return local;
}

static int o0_mid(int *p, int n) {
	int a = n + 1;
	return o0_leaf(p, a) + a;
}

int case_O0(int n) {
	return o0_mid(crash_ptr, n) + 3;
}
