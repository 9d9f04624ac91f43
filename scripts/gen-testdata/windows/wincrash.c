/* wincrash: small Windows x64 crash cases for the PE walk tests
 * (scripts/gen-testdata/windows/gen.sh builds it with clang for
 * x86_64-w64-mingw32 and runs it under Wine).
 *
 * wincrash CASE DUMP: starts two worker threads (one blocked in
 * WaitForSingleObject three calls deep, one spinning in a frameless leaf
 * three calls deep), then runs CASE on the main thread; the unhandled
 * exception filter writes DUMP with MiniDumpWriteDump.
 *   leaf    NULL write in a frameless leaf (no RUNTIME_FUNCTION)
 *   fp      NULL write in a function with a frame pointer (alloca: SET_FPREG)
 *   qsort   NULL write in a qsort comparator: the walk goes through msvcrt.dll
 *   prolog  stopped (single step) inside asm_frame's prolog, after two pushes
 *   epilog  stopped (single step) inside asm_frame's epilog, at pop %rbx
 */
#include <windows.h>
#include <dbghelp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>

#define NOINLINE __attribute__((noinline))

static const char *dump_path;
static HANDLE never_set;
static volatile LONG spin_ready, wait_ready;
volatile int sink;
static void *stop_at;
/* volatile: so the compiler cannot prove the stores below write to NULL
 * (undefined behaviour it would compile to a trap). */
static int *volatile null_ptr;

static void run_winedbg(void);

static LONG WINAPI write_dump(EXCEPTION_POINTERS *ep) {
	HANDLE f = CreateFileA(dump_path, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
	MINIDUMP_EXCEPTION_INFORMATION mei = {GetCurrentThreadId(), ep, FALSE};
	if (f == INVALID_HANDLE_VALUE || !MiniDumpWriteDump(GetCurrentProcess(), GetCurrentProcessId(), f,
			MiniDumpNormal, &mei, NULL, NULL)) {
		fprintf(stderr, "wincrash: MiniDumpWriteDump failed: %lu\n", GetLastError());
		ExitProcess(3);
	}
	CloseHandle(f);
	fprintf(stderr, "wincrash: wrote %s\n", dump_path);
	run_winedbg();
	ExitProcess(2);
	return EXCEPTION_EXECUTE_HANDLER;
}

/* With WINCRASH_WINEDBG=FILE, has winedbg attach and write every
 * thread's backtrace to FILE: the oracle for the threads the dump's
 * exception does not name (winedbg reads only that one from a dump). */
static void run_winedbg(void) {
	char out[MAX_PATH], cmd[2 * MAX_PATH];
	if (!GetEnvironmentVariableA("WINCRASH_WINEDBG", out, sizeof out))
		return;
	HANDLE h = CreateFileA(out, GENERIC_WRITE, FILE_SHARE_READ, &(SECURITY_ATTRIBUTES){sizeof(SECURITY_ATTRIBUTES), NULL, TRUE},
		CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
	STARTUPINFOA si = {sizeof si};
	PROCESS_INFORMATION pi;
	si.dwFlags = STARTF_USESTDHANDLES;
	si.hStdOutput = si.hStdError = h;
	snprintf(cmd, sizeof cmd, "winedbg --command \"bt all\" %lu", GetCurrentProcessId());
	if (CreateProcessA(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) {
		WaitForSingleObject(pi.hProcess, 60000);
		CloseHandle(pi.hProcess);
	}
	CloseHandle(h);
}

/* Single-steps until the thread reaches stop_at, then lets the exception
 * go unhandled, so the dump's context is the thread stopped there. */
static LONG CALLBACK stepper(EXCEPTION_POINTERS *ep) {
	if (ep->ExceptionRecord->ExceptionCode != EXCEPTION_SINGLE_STEP)
		return EXCEPTION_CONTINUE_SEARCH;
	if ((void *)ep->ContextRecord->Rip == stop_at)
		return EXCEPTION_CONTINUE_SEARCH;
	ep->ContextRecord->EFlags |= 0x100;
	return EXCEPTION_CONTINUE_EXECUTION;
}

/* Worker 1: blocked in WaitForSingleObject, wait_a -> wait_b -> wait_c. */
NOINLINE static void wait_c(void) {
	InterlockedExchange(&wait_ready, 1);
	WaitForSingleObject(never_set, INFINITE);
	sink++;
}
NOINLINE static void wait_b(void) { wait_c(); sink++; }
NOINLINE static void wait_a(void) { wait_b(); sink++; }
static DWORD WINAPI waiter(void *arg) { wait_a(); return 0; }

/* Worker 2: spinning in a frameless leaf, spin_a -> spin_b -> spin_leaf. */
NOINLINE static void spin_leaf(volatile LONG *flag) {
	*flag = 1;
	for (;;)
		sink += *flag;
}
NOINLINE static void spin_b(void) { spin_leaf(&spin_ready); sink++; }
NOINLINE static void spin_a(void) { spin_b(); sink++; }
static DWORD WINAPI spinner(void *arg) { spin_a(); return 0; }

/* The leaf case. */
NOINLINE static void leaf_store(int *p, int v) { *p = v; }
NOINLINE static void leaf_mid(int *p) { leaf_store(p, 42); sink++; }
NOINLINE static void leaf_top(int *p) { leaf_mid(p); sink++; }

/* The fp case: alloca makes clang keep a frame pointer (UWOP_SET_FPREG). */
NOINLINE static void fp_crash(int n, int *p) {
	volatile char *buf = alloca(n);
	buf[0] = (char)n;
	*p = buf[0];
	sink += buf[n - 1];
}
NOINLINE static void fp_mid(int *p) { fp_crash(64, p); sink++; }
NOINLINE static void fp_top(int *p) { fp_mid(p); sink++; }

/* The qsort case: the comparator crashes, called from msvcrt's qsort. */
static int *qsort_target;
static int crash_compare(const void *a, const void *b) {
	*qsort_target = *(const int *)a;
	return *(const int *)a - *(const int *)b;
}
NOINLINE static void qsort_mid(int *p) {
	int v[4] = {4, 3, 2, 1};
	qsort_target = p;
	qsort(v, 4, sizeof v[0], crash_compare);
	sink += v[0];
}
NOINLINE static void qsort_top(int *p) { qsort_mid(p); sink++; }

/* The prolog and epilog cases: asm_frame has hand-written unwind codes,
 * so where its prolog and epilog instructions are is known exactly. */
extern void asm_frame(void);
extern char asm_prolog_stop[], asm_epilog_stop[];
__asm__(
	".text\n"
	".globl asm_frame\n"
	".def asm_frame; .scl 2; .type 32; .endef\n"
	".seh_proc asm_frame\n"
	"asm_frame:\n"
	"	push %rbp\n"
	"	.seh_pushreg %rbp\n"
	"	push %rbx\n"
	"	.seh_pushreg %rbx\n"
	".globl asm_prolog_stop\n"
	"asm_prolog_stop:\n"
	"	push %rsi\n"
	"	.seh_pushreg %rsi\n"
	"	sub $48, %rsp\n"
	"	.seh_stackalloc 48\n"
	"	.seh_endprologue\n"
	"	call asm_callee\n"
	"	add $48, %rsp\n"
	"	pop %rsi\n"
	".globl asm_epilog_stop\n"
	"asm_epilog_stop:\n"
	"	pop %rbx\n"
	"	pop %rbp\n"
	"	ret\n"
	".seh_endproc\n");
NOINLINE void asm_callee(void) { sink++; }
NOINLINE static void step_mid(void *stop) {
	stop_at = stop;
	AddVectoredExceptionHandler(1, stepper);
	__asm__ volatile("pushfq\n\torq $0x100, (%%rsp)\n\tpopfq" ::: "memory", "cc");
	asm_frame();
	sink++;
}
NOINLINE static void step_top(void *stop) { step_mid(stop); sink++; }

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: wincrash leaf|fp|qsort|prolog|epilog DUMP\n");
		return 1;
	}
	dump_path = argv[2];
	SetUnhandledExceptionFilter(write_dump);
	never_set = CreateEventA(NULL, TRUE, FALSE, NULL);
	CreateThread(NULL, 0, waiter, NULL, 0, NULL);
	CreateThread(NULL, 0, spinner, NULL, 0, NULL);
	while (!spin_ready || !wait_ready)
		Sleep(1);
	Sleep(50); /* let the waiter reach its wait */
	const char *c = argv[1];
	if (!strcmp(c, "leaf"))
		leaf_top(null_ptr);
	else if (!strcmp(c, "fp"))
		fp_top(null_ptr);
	else if (!strcmp(c, "qsort"))
		qsort_top(null_ptr);
	else if (!strcmp(c, "prolog"))
		step_top(asm_prolog_stop);
	else if (!strcmp(c, "epilog"))
		step_top(asm_epilog_stop);
	fprintf(stderr, "wincrash: unknown case %s\n", c);
	return 1;
}
