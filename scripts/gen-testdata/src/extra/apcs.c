/* ARM APCS frames without CFI (gen.sh extra_apcs): built -marm
 * -mapcs-frame, its .debug_frame removed, so neither dump_syms nor gdb
 * sees CFI for these functions. Each saves {fp, ip, lr, pc} with
 * fp = ip - 4; apcs_va also pushes its register arguments first. */
#include <stdarg.h>

int *volatile apcs_ptr;

__attribute__((noinline)) int apcs_leaf(int n) {
	volatile int pad[4];
	pad[n & 3] = n;
	return *apcs_ptr + pad[0];
}

__attribute__((noinline)) int apcs_mid(int n) {
	int r = apcs_leaf(n + 1);
	return r * 3 + n;
}

__attribute__((noinline)) int apcs_va(int n, ...) {
	va_list ap;
	va_start(ap, n);
	int k = va_arg(ap, int);
	va_end(ap);
	int r = apcs_mid(n + k);
	return r - k;
}

__attribute__((noinline)) int apcs_outer(int n) {
	int r = apcs_va(n, 5, 6, 7);
	return r + 2;
}

int main(int argc, char **argv) {
	(void)argv;
	int r = apcs_outer(argc);
	return r + 7;
}
