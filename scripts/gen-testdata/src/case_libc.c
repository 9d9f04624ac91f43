/* A crash in a callback called by libc's qsort: the walk must pass through
   libc frames (assembly and C) to reach the caller. */
#include <stdlib.h>
#include "crash.h"

__attribute__((noinline)) static int compare_ints(const void *a, const void *b) {
	int x = *(const int *)a, y = *(const int *)b;
	if (x == 3 || y == 3)
		*crash_ptr = x; /* SIGSEGV inside qsort */
	return (x > y) - (x < y);
}

__attribute__((noinline)) static int sort_them(int n) {
	int v[16];
	for (int i = 0; i < 16; i++) v[i] = (i * 7 + n) % 16;
	qsort(v, 16, sizeof v[0], compare_ints);
	return v[0];
}

__attribute__((noinline)) int case_libc(int n) {
	return sort_them(n) + 1;
}
