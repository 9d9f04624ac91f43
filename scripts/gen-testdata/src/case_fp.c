/* Built -O2 with frame pointers (Thumb-2 on arm). */
#include "crash.h"

__attribute__((noinline)) static int fp_leaf(int *p, int n) {
	*p = n; /* SIGSEGV */
	return n + 1;
}

__attribute__((noinline)) static int fp_mid(int *p, int n) {
	int r = fp_leaf(p, n * 2);
	return r * 3 + n;
}

__attribute__((noinline)) int case_fp(int n) {
	int r = fp_mid(crash_ptr, n);
	return r + 1;
}

#if defined(__arm__)
/* Called from ARM-mode code in case_arm.c: an interworking call. */
__attribute__((noinline)) int thumb_leaf(int *p, int n) {
	*p = n + 7; /* SIGSEGV */
	return n;
}
#endif
