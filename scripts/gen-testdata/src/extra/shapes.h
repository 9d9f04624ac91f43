/* shapesdemo (gen.sh extra cases throw, strfn, noreturn, overflow): one program, one
 * case per source file, chosen by argv[1] (shapes.c). With -DUNWIND_ORACLE
 * (arm, where gdb loses these stacks under qemu-user) a case first writes
 * libgcc's backtrace (_Unwind_Backtrace) from a call site the fault's
 * stack shares, in the format of gdb_frames.py: oracle_backtrace. */
#ifndef SHAPES_H
#define SHAPES_H
#ifdef __cplusplus
extern "C" {
#endif
int throw_main(int argc);
int strfn_main(int argc);
int noreturn_main(int argc);
int overflow_main(int argc);
/* Writes libgcc's backtrace of the calling thread to stdout (frame 0 is
 * oracle_backtrace itself) with -DUNWIND_ORACLE; else does nothing. */
void oracle_backtrace(void);
#ifdef __cplusplus
}
#endif
#endif
