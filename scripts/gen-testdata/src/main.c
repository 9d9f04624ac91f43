#include <stdio.h>
#include <string.h>
#include "crash.h"

int *volatile crash_ptr;

int main(int argc, char **argv) {
	const char *c = argc > 1 ? argv[1] : "fp";
	int n = argc;
	if (!strcmp(c, "fp")) return case_fp(n);
	if (!strcmp(c, "nofp")) return case_nofp(n);
	if (!strcmp(c, "O0")) return case_O0(n);
	if (!strcmp(c, "recursion")) return case_recursion(n);
	if (!strcmp(c, "libc")) return case_libc(n);
	if (!strcmp(c, "abort")) return case_abort(n);
	if (!strcmp(c, "threads")) return case_threads(n);
	if (!strcmp(c, "cpp")) return case_cpp(n);
#if defined(__arm__)
	if (!strcmp(c, "armmode")) return case_armmode(n);
#endif
	fprintf(stderr, "unknown case %s\n", c);
	return 2;
}
