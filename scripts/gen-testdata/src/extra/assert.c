/* arm-assert: an assertion fails in a function called only through a
 * pointer, so glibc's __assert_fail, __assert_fail_base and abort (objects
 * with no unwind entry but the linker's EXIDX_CANTUNWIND) lie between the
 * signal and the program's frames. */
#include <assert.h>

static int __attribute__((noinline)) check_positive(int v)
{
	assert(v > 0 && "v must be positive");
	return v * 2;
}

int (*volatile checker)(int) = check_positive;

int __attribute__((noinline)) run_check(int v)
{
	return checker(v) + 1;
}

int main(int argc, char **argv)
{
	(void)argv;
	return run_check(argc - 1); /* no arguments: 0 fails the assertion */
}
