/* A frameless leaf at frame 0 without CFI (gen.sh extra cases amd64-leaf,
 * x86-leaf): built -fno-omit-frame-pointer -momit-leaf-frame-pointer, its
 * .eh_frame and .debug_frame left out, so the leaf keeps no frame pointer
 * and the frame-pointer register still holds its caller's record. */
int *volatile leaf_ptr;

__attribute__((noinline)) int leaf_crash(int n) {
	return *leaf_ptr + n;
}

__attribute__((noinline)) int leaf_mid(int n) {
	int r = leaf_crash(n + 1);
	return r * 3 + n;
}

__attribute__((noinline)) int leaf_outer(int n) {
	int r = leaf_mid(n * 2);
	return r - 1;
}

int main(int argc, char **argv) {
	(void)argv;
	int r = leaf_outer(argc);
	return r + 7;
}
