/* A crash in a leaf function that has no CFI and has not pushed a frame
   record (asm_leaf, leaf.S): the walk must return through LR with SP and x29
   unchanged. Built and recorded by gen.sh. */
int *volatile crash_ptr;
void asm_leaf(int *p, int v);

__attribute__((noinline)) int middle(int n) {
	volatile int v[8];
	for (int i = 0; i < 8; i++) v[i] = n + i;
	asm_leaf(crash_ptr, v[n & 7]);
	return v[(n + 1) & 7];
}

__attribute__((noinline)) int outer(int n) {
	return middle(n) + 1;
}

int main(int argc, char **argv) {
	(void)argv;
	return outer(argc);
}
