/* A fault inside a signal handler (gen.sh extra case amd64-signal): the
 * handler, entered on SIGALRM while sig_spin loops, calls sig_crash, which
 * dereferences NULL. The handler returns into glibc's __restore_rt (the
 * sa_restorer sigaction sets), whose frame the kernel's rt_sigframe holds. */
#include <signal.h>
#include <unistd.h>

int *volatile sig_ptr;
volatile unsigned long sig_count;

__attribute__((noinline)) int sig_crash(int n) {
	return *sig_ptr + n;
}

__attribute__((noinline)) static void sig_handler(int sig) {
	sig_count += sig_crash(sig);
}

__attribute__((noinline)) void sig_spin(unsigned long n) {
	for (;;) {
		sig_count += n;
	}
}

__attribute__((noinline)) int sig_outer(int n) {
	struct sigaction sa = {0};
	sa.sa_handler = sig_handler;
	sigaction(SIGALRM, &sa, 0);
	alarm(1);
	sig_spin(n);
	return n;
}

int main(int argc, char **argv) {
	(void)argv;
	return sig_outer(argc) + 1;
}
