/* A fault inside a signal handler (gen.sh extra cases amd64-signal,
 * x86-signal, arm-signal, arm-rtsignal, arm64-signal): the handler,
 * entered on SIGALRM while sig_spin loops, calls sig_crash, which
 * dereferences NULL. The handler returns into its restorer (glibc's
 * __restore_rt on amd64, __default_sa_restorer or, with SA_SIGINFO,
 * __default_rt_sa_restorer on arm), into the vDSO (i386), or into
 * qemu-user's trampoline page (arm64), above which lies the kernel's
 * signal frame.
 *
 * With -DUNWIND_ORACLE, sig_crash first walks its own stack with libgcc's
 * unwinder (_Unwind_Backtrace: DWARF CFI with the Linux signal-frame
 * fallback on arm64, the EHABI tables and glibc's unwind annotations of
 * its restorers on arm) and writes each frame's pc, in the format of
 * gdb_frames.py, to stdout: an oracle independent of gdb (which qemu-user's
 * signal frames defeat) and of the walker. Its frame 0 lies in sig_crash
 * after the call; from frame 1 on, the frames are those of the fault.
 * With -DUSE_SIGINFO the handler is installed with SA_SIGINFO (an
 * rt_sigframe on arm). */
#include <signal.h>
#include <unistd.h>

#ifdef UNWIND_ORACLE
#include <stdio.h>
#include <sys/syscall.h>
#include <unwind.h>

static _Unwind_Reason_Code oracle_frame(struct _Unwind_Context *ctx, void *arg) {
	int *n = arg, before = 0;
	unsigned long pc = _Unwind_GetIPInfo(ctx, &before);
	/* before: the pc is the interrupted instruction (a signal frame's
	 * caller), not a return address. */
	dprintf(1, "frame %d %#lx %s ??\n", (*n)++, pc, before ? "interrupted" : "normal");
	return *n < 64 ? _URC_NO_REASON : _URC_END_OF_STACK;
}

static inline __attribute__((always_inline)) void unwind_oracle(void) {
	int n = 0;
	dprintf(1, "# libgcc _Unwind_Backtrace in sig_crash before the fault\n");
	dprintf(1, "thread %ld crashed\n", (long)syscall(SYS_gettid));
	_Unwind_Backtrace(oracle_frame, &n);
}
#endif

int *volatile sig_ptr;
volatile unsigned long sig_count;

__attribute__((noinline)) int sig_crash(int n) {
#ifdef UNWIND_ORACLE
	unwind_oracle();
#endif
	return *sig_ptr + n;
}

#ifdef USE_SIGINFO
__attribute__((noinline)) static void sig_handler(int sig, siginfo_t *info, void *uc) {
	(void)info;
	(void)uc;
	sig_count += sig_crash(sig);
}
#else
__attribute__((noinline)) static void sig_handler(int sig) {
	sig_count += sig_crash(sig);
}
#endif

__attribute__((noinline)) void sig_spin(unsigned long n) {
	for (;;) {
		sig_count += n;
	}
}

__attribute__((noinline)) int sig_outer(int n) {
	struct sigaction sa = {0};
#ifdef USE_SIGINFO
	sa.sa_sigaction = sig_handler;
	sa.sa_flags = SA_SIGINFO;
#else
	sa.sa_handler = sig_handler;
#endif
	sigaction(SIGALRM, &sa, 0);
	alarm(1);
	sig_spin(n);
	return n;
}

int main(int argc, char **argv) {
	(void)argv;
	return sig_outer(argc) + 1;
}
