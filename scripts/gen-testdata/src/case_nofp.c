/* Built -O2 without frame pointers: callers are found only through CFI. */
#include <string.h>
#include "crash.h"

__attribute__((noinline)) static int nofp_leaf(int *p, const char *buf, int n) {
	*p = buf[n & 7]; /* SIGSEGV */
	return n + buf[1];
}

__attribute__((noinline)) static int nofp_mid(int *p, int n) {
	char buf[64];
	memset(buf, n, sizeof buf);
	int r = nofp_leaf(p, buf, n);
	return r + buf[n & 15];
}

__attribute__((noinline)) static int nofp_outer(int *p, int n) {
	volatile long spill[8];
	for (int i = 0; i < 8; i++) spill[i] = n + i;
	int r = nofp_mid(p, n + (int)spill[3]);
	return r + (int)spill[5];
}

__attribute__((noinline)) int case_nofp(int n) {
	int r = nofp_outer(crash_ptr, n);
	return r + 2;
}
