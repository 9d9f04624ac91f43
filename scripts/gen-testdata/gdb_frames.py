# gdb -batch -nx -x gdb_frames.py PROGRAM CORE
#
# Prints, for the core loaded in gdb, a line-based description that Go tests
# read (format in docs/testdata.md):
#   thread LWP [crashed]
#   reg NAME 0xVALUE            frame-0 registers, gdb's names
#   frame N 0xPC TYPE FUNCTION  physical frames only, N counts them from 0
#   library 0xFROM 0xTO PATH    gdb's `info sharedlibrary` (text ranges), if any
# gdb's inline and tail-call frames are left out: they have no stack frame
# of their own, so a stack walker never produces them.
#
# GDB_FRAMES_MAX=N (environment) lists at most N physical frames per thread
# and asks gdb for no frame past them: where gdb is known to unwind wrongly
# or to hang past a frame (qemu-user's signal frames), the listing stops
# there and another oracle covers the rest.
import os

import gdb

max_frames = int(os.environ.get("GDB_FRAMES_MAX", "0"))

gdb.execute("set pagination off")
gdb.execute("set backtrace past-main on")
gdb.execute("set print frame-arguments none")

arch = gdb.selected_frame().architecture().name()
is32 = False
if "x86-64" in arch:
    regs = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11",
            "r12", "r13", "r14", "r15", "rip", "eflags"]
elif "i386" in arch:
    is32 = True
    regs = ["eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip", "eflags"]
elif "aarch64" in arch:
    regs = ["x%d" % i for i in range(31)] + ["sp", "pc", "cpsr"]
elif "arm" in arch:
    is32 = True
    regs = ["r%d" % i for i in range(13)] + ["sp", "lr", "pc", "cpsr"]
else:
    raise gdb.GdbError("unknown architecture " + arch)

frame_types = {
    gdb.NORMAL_FRAME: "normal",
    gdb.DUMMY_FRAME: "dummy",
    gdb.SIGTRAMP_FRAME: "sigtramp",
    gdb.ARCH_FRAME: "arch",
    gdb.SENTINEL_FRAME: "sentinel",
}

crashed = gdb.selected_thread()
print("# gdb %s, architecture %s" % (gdb.VERSION, arch))
inf = gdb.selected_inferior()
for t in sorted(inf.threads(), key=lambda t: t.num):
    t.switch()
    print("thread %d%s" % (t.ptid[1], " crashed" if t == crashed else ""))
    f0 = gdb.newest_frame()
    for r in regs:
        try:
            v = int(f0.read_register(r)) & (2**64 - 1)
            if is32:
                v &= 2**32 - 1
            print("reg %s %#x" % (r, v))
        except (gdb.error, ValueError):
            pass
    f = f0
    n = 0
    while f is not None:
        if f.type() not in (gdb.INLINE_FRAME, gdb.TAILCALL_FRAME):
            name = f.name() or "??"
            print("frame %d %#x %s %s" % (n, f.pc(), frame_types.get(f.type(), "other"), name))
            n += 1
            if n == max_frames:
                break
        try:
            f = f.older()
        except gdb.error:
            break

for line in gdb.execute("info sharedlibrary", to_string=True).splitlines():
    f = line.split()
    if len(f) >= 4 and f[0].startswith("0x") and f[1].startswith("0x"):
        print("library %s %s %s" % (f[0], f[1], f[-1]))
