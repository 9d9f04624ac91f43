/* shapesdemo's main: runs the case named by argv[1] (throw.cc, strfn.c,
 * noreturn.c, overflow.c), and oracle_backtrace (shapes.h). */
#include <string.h>
#include "shapes.h"

#ifdef UNWIND_ORACLE
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <unwind.h>

static _Unwind_Reason_Code oracle_frame(struct _Unwind_Context *ctx, void *arg) {
	int *n = arg, before = 0;
	unsigned long pc = _Unwind_GetIPInfo(ctx, &before);
	dprintf(1, "frame %d %#lx %s ??\n", (*n)++, pc, before ? "interrupted" : "normal");
	return *n < 64 ? _URC_NO_REASON : _URC_END_OF_STACK;
}

__attribute__((noinline)) void oracle_backtrace(void) {
	int n = 0;
	dprintf(1, "# libgcc _Unwind_Backtrace from a call site of the fault's stack\n");
	dprintf(1, "thread %ld crashed\n", (long)syscall(SYS_gettid));
	_Unwind_Backtrace(oracle_frame, &n);
}
#else
__attribute__((noinline)) void oracle_backtrace(void) {
	__asm__ volatile("" ::: "memory");
}
#endif

int main(int argc, char **argv) {
	int r = 0;
	if (argc > 1 && strcmp(argv[1], "throw") == 0)
		r = throw_main(argc);
	else if (argc > 1 && strcmp(argv[1], "strfn") == 0)
		r = strfn_main(argc);
	else if (argc > 1 && strcmp(argv[1], "noreturn") == 0)
		r = noreturn_main(argc);
	else if (argc > 1 && strcmp(argv[1], "overflow") == 0)
		r = overflow_main(argc);
	return r + 1; /* not tail calls */
}
