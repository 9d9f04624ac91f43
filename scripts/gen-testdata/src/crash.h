/* Crash cases for the test corpus; see docs/testdata.md. Each case is
   compiled with its own flags (see gen.sh) and linked into one program. */
#ifndef CRASH_H
#define CRASH_H
#ifdef __cplusplus
extern "C" {
#endif
extern int *volatile crash_ptr; /* always NULL: writes through it fault */
int case_fp(int n);
int case_nofp(int n);
int case_O0(int n);
int case_recursion(int n);
int case_libc(int n);
int case_abort(int n);
int case_threads(int n);
int case_cpp(int n);
int case_armmode(int n);
int thumb_leaf(int *p, int n);
#ifdef __cplusplus
}
#endif
#endif
