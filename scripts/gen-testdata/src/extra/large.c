/* Large frames without CFI in the .sym (gen.sh extra cases amd64-large,
 * x86-large, arm-large, arm64-large): a crash a few calls below a function
 * with an alloca of a runtime size, one with a VLA and one with a big fixed
 * buffer, so each caller's return address lies hundreds of bytes above the
 * callee's stack pointer. Built -fomit-frame-pointer; the program keeps its
 * .debug_frame for gdb (the oracle) while dump_syms reads a copy without it. */
#include <alloca.h>
#include <stddef.h>

int *volatile large_ptr;
volatile unsigned large_sum;

/* Reads the whole buffer, so the compiler keeps it and every store to it. */
__attribute__((noinline)) void large_consume(const unsigned char *p, size_t n) {
	unsigned s = 0;
	for (size_t i = 0; i < n; i++)
		s = s * 31 + p[i];
	large_sum += s;
}

/* Small, non-pointer bytes over the whole buffer: no stale stack words. */
static void large_fill(unsigned char *p, size_t n, unsigned seed) {
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)((i * 7 + seed) & 0x3f);
}

__attribute__((noinline)) int large_crash(int n) {
	return *large_ptr + n;
}

__attribute__((noinline)) int large_mid(int n) {
	int r = large_crash(n + 1);
	return r * 3 + n;
}

__attribute__((noinline)) int large_buffer(int n) {
	unsigned char buf[1024];
	large_fill(buf, sizeof buf, (unsigned)n);
	int r = large_mid(n + 2);
	large_consume(buf, sizeof buf);
	return r + buf[n & 0x3ff];
}

__attribute__((noinline)) int large_vla(int n) {
	size_t size = 800 + (size_t)n * 40;
	unsigned char vla[size];
	large_fill(vla, size, (unsigned)n + 1);
	int r = large_buffer(n + 3);
	large_consume(vla, size);
	return r - vla[n % size];
}

__attribute__((noinline)) int large_alloca(int n) {
	size_t size = 600 + (size_t)n * 60;
	unsigned char *p = alloca(size);
	large_fill(p, size, (unsigned)n + 2);
	int r = large_vla(n + 4);
	large_consume(p, size);
	return r ^ p[n % size];
}

int main(int argc, char **argv) {
	(void)argv;
	return large_alloca(argc) + 7;
}
