/* Frames that realign their stack (gen.sh extra case amd64-realign): a
 * variable-length array beside an over-aligned local makes GCC keep the
 * pre-alignment stack pointer in a register (DRAP: r10, saved below the
 * frame record, with a copy of the return address pushed above it) and
 * describe the CFA with a DWARF expression dump_syms cannot write. The main
 * thread crashes below two such frames; a second thread spins inside one. */
#include <pthread.h>
#include <string.h>

int *volatile realign_ptr;
volatile int realign_sink;
volatile int realign_spinning;

__attribute__((noinline)) int realign_crash(int n) {
	return *realign_ptr + n;
}

__attribute__((noinline)) int realign_inner(int n) {
	char buf[64] __attribute__((aligned(64)));
	char vla[n];
	memset(vla, n, n);
	memset(buf, n, sizeof buf);
	realign_sink = buf[n & 63] + vla[n - 1];
	int r = realign_crash(n + buf[3]);
	return r + buf[5] + vla[0];
}

__attribute__((noinline)) int realign_outer(int n) {
	char buf[128] __attribute__((aligned(128)));
	char vla[n + 8];
	memset(vla, n, n + 8);
	memset(buf, n + 1, sizeof buf);
	realign_sink = buf[n & 127] + vla[n];
	int r = realign_inner(n * 2 + buf[7]);
	return r - buf[9] + vla[1];
}

/* realign_spin loops in its realigned body until the process dies (the
 * exit test keeps GCC from treating it as noreturn, which drops DRAP). */
__attribute__((noinline)) int realign_spin(int n) {
	char buf[64] __attribute__((aligned(64)));
	char vla[n];
	memset(vla, n, n);
	memset(buf, n, sizeof buf);
	while (realign_sink != -1) {
		realign_spinning = 1;
		realign_sink = (realign_sink + buf[realign_sink & 63] + vla[0]) & 0xffff;
	}
	return buf[1] + vla[1];
}

static void *spinner(void *arg) {
	return (void *)(long)realign_spin((int)(long)arg);
}

int main(int argc, char **argv) {
	(void)argv;
	pthread_t t;
	pthread_create(&t, 0, spinner, (void *)(long)(argc + 4));
	while (!realign_spinning) {
	}
	return realign_outer(argc) + 1;
}
