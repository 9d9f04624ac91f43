/* shapesdemo overflow: unbounded recursion into a thread stack's guard page (gen.sh extra
 * cases amd64-overflow, x86-overflow, arm-overflow, arm64-overflow): a
 * thread with a 128 KiB stack (PTHREAD_STACK_MIN of arm64) recurses in
 * ov_recurse (a 512-byte local per frame) until a store or push lands in
 * the PROT_NONE guard page below it. Its SIGSEGV handler runs on the
 * thread's sigaltstack (the overflowed stack has no room), puts back the
 * default action and raises the signal again, which is delivered when the
 * handler returns: the process dies with the registers of the faulting
 * instruction in the overflowing thread, its stack pointer at the guard
 * page, while main waits in pthread_join (the thread first sleeps: i386
 * clone3 has no CFI past its system call, and gdb stops there). */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include "shapes.h"

static char ov_altstack[65536];
volatile unsigned long ov_sink;

static void ov_handler(int sig) {
	signal(sig, SIG_DFL);
	raise(sig);
}

__attribute__((noinline)) unsigned long ov_recurse(unsigned long n) {
	volatile unsigned char pad[512];
	pad[n % 512] = (unsigned char)n;
	ov_sink += pad[(n * 7) % 512];
	return ov_recurse(n + 1) + pad[0]; /* not a tail call */
}

static void *ov_thread(void *arg) {
	stack_t ss = {.ss_sp = ov_altstack, .ss_size = sizeof ov_altstack};
	struct sigaction sa = {0};
	sigaltstack(&ss, 0);
	sa.sa_handler = ov_handler;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGSEGV, &sa, 0);
	usleep(200000); /* main is in pthread_join by then, not in clone3 */
	return (void *)ov_recurse((unsigned long)arg);
}

int overflow_main(int argc) {
	pthread_attr_t attr;
	pthread_t t;
	pthread_attr_init(&attr);
	if (pthread_attr_setstacksize(&attr, 131072))
		return 2;
	if (pthread_create(&t, &attr, ov_thread, (void *)(long)argc))
		return 1;
	pthread_join(t, 0);
	return 0;
}
