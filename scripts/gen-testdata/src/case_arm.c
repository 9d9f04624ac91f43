/* Built -marm: ARM-mode frames calling a Thumb function (arm only). */
#include "crash.h"

__attribute__((noinline)) static int arm_mid(int *p, int n) {
	int r = thumb_leaf(p, n + 1);
	return r * 5 + n;
}

__attribute__((noinline)) int case_armmode(int n) {
	int r = arm_mid(crash_ptr, n);
	return r + 4;
}
