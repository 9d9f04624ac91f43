/* A small program with the frames unwinders meet: a realigned main (i386),
   alloca (a frame pointer CFA), recursion, a signal handler and libc calls
   through the PLT. Built by ../gen.sh. */
#include <alloca.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void allcfi(void);
void sigtramp(void);

static volatile int sink;

__attribute__((noinline)) static int leaf(int n) { return n * 3 + sink; }

__attribute__((noinline)) static int with_alloca(int n) {
	char *p = alloca(n + 16);
	memset(p, n, n + 16);
	return p[n] + leaf(n);
}

__attribute__((noinline)) static int recurse(int n) {
	if (n <= 0)
		return with_alloca(8);
	return recurse(n - 1) + leaf(n);
}

static void handler(int sig) { sink = recurse(sig); }

static int compare(const void *a, const void *b) {
	return *(const int *)a - *(const int *)b;
}

int main(int argc, char **argv) {
	int v[16] __attribute__((aligned(32)));
	for (int i = 0; i < 16; i++)
		v[i] = 16 - i + argc;
	qsort(v, 16, sizeof v[0], compare);
	signal(SIGUSR1, handler);
	if (argc > 5) {
		allcfi();
		sigtramp();
	}
	printf("%d\n", recurse(argc) + v[0]);
	(void)argv;
	return 0;
}
