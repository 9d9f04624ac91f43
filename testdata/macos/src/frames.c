/* Frame-pointer functions of the Mach-O test program (built with frame
   pointers; leaf.c without). */
int leaf_sum(int *p, int n);
int big_frame(int *p, int n);
volatile int sink;

__attribute__((noinline)) int middle(int *p, int n) {
	return big_frame(p, n + 1) * 3 + sink;
}

void start(void) {
	sink = middle((int *)0, 2);
	for (;;)
		;
}
