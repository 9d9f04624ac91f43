/* Functions of the Mach-O test program built without frame pointers:
   frameless compact unwind encodings (immediate and indirect stack
   sizes, saved registers). */
extern volatile int sink;

__attribute__((noinline)) void crash_here(int *p, int v) {
	*p = v; /* the crash: a write through a null pointer */
}

__attribute__((noinline)) int leaf_sum(int *p, int n) {
	int a[8];
	for (int i = 0; i < 8; i++)
		a[i] = sink + i * n;
	crash_here(p, a[n & 7]);
	return a[3] + a[n & 3];
}

__attribute__((noinline)) int big_frame(int *p, int n) {
	volatile char buf[4096];
	buf[n] = (char)n;
	return leaf_sum(p, buf[n]) + buf[1];
}
