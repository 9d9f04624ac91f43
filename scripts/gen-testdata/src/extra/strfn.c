/* shapesdemo strfn: a fault inside libc's optimized string routine (gen.sh
 * extra cases amd64-strfn, x86-strfn, arm-strfn, arm64-strfn): strlen of a string
 * without its terminating NUL, which runs off the end of its mapping into
 * a PROT_NONE page. strlen is a frameless assembly leaf (the IFUNC-chosen
 * vector version where there is one) that faults in the middle of its
 * loop, four calls below main. strfn_measure calls oracle_backtrace and
 * then strlen from one call site (an indirect call), so libgcc's backtrace
 * (arm) has the frames of the fault from strfn_measure on. */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "shapes.h"

volatile size_t strfn_total;

static size_t strfn_oracle(const char *s) {
	(void)s;
	oracle_backtrace();
	return 0;
}

static size_t (*volatile strfn_steps[2])(const char *) = {strfn_oracle, strlen};

__attribute__((noinline)) size_t strfn_measure(const char *s) {
	size_t n = 0;
	for (volatile int i = 0; i < 2; i++) /* volatile: one call site, not unrolled */
		n += strfn_steps[i](s);
	strfn_total += n; /* not a tail call */
	return n;
}

__attribute__((noinline)) size_t strfn_label(int n) {
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(0, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	mprotect(p + page, page, PROT_NONE);
	memset(p, 'a' + n % 26, page); /* no NUL up to the PROT_NONE page */
	return strfn_measure(p + 100) + 1;
}

__attribute__((noinline)) size_t strfn_outer(int n) {
	size_t r = strfn_label(n + 1);
	return r * 2 + strfn_total;
}

int strfn_main(int argc) {
	return (int)strfn_outer(argc);
}
