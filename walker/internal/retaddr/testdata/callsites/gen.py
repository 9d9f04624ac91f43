#!/usr/bin/env python3
"""Prints callsite_test.go's table from the assembled test programs.

Run in this directory after assembling and linking (commands as in callsite_test.go):
  python3 gen.py thumb a64 x86 x64
Each row: the return address after an instruction, the bytes before it, and
the call site that instruction is, taken from objdump's disassembly.
"""
import subprocess, re, sys
def text(elf, objcopy):
    out = subprocess.check_output(['readelf', '-S', elf]).decode()
    m = re.search(r'\.text\s+PROGBITS\s+([0-9a-f]+)\s+([0-9a-f]+)', out)
    addr = int(m.group(1), 16)
    subprocess.check_call([objcopy, '-O', 'binary', '--only-section=.text', elf, elf + '.bin'])
    return addr, open(elf + '.bin', 'rb').read()
cfg = {
 'thumb': ('thumb.elf', 'arm-linux-gnueabihf-objcopy', 'arm-linux-gnueabihf-objdump', 'isaARM', 8),
 'a64': ('a64.elf', 'aarch64-linux-gnu-objcopy', 'aarch64-linux-gnu-objdump', 'isaARM64', 4),
 'x86': ('x86.elf', 'objcopy', 'objdump', 'isaX86', 11),
 'x64': ('x64.elf', 'objcopy', 'objdump', 'isaAMD64', 11),
}
for key in sys.argv[1:]:
    elf, objcopy, objdump, isa, N = cfg[key]
    base, data = text(elf, objcopy)
    lines = subprocess.check_output([objdump, '-d', '-w', elf]).decode().splitlines()
    insns = []
    thumb = True
    for l in lines:
        m = re.match(r'^\s*([0-9a-f]+):\t((?:[0-9a-f]+ ?)+)\s*\t(\S+)\s*(.*)$', l)
        if not m:
            continue
        addr = int(m.group(1), 16)
        hexes = m.group(2).split()
        if key in ('thumb', 'a64'):
            ln = sum(len(h)//2 for h in hexes)
        else:
            ln = len(hexes)
        insns.append((addr, ln, m.group(3), m.group(4)))
    prev = None
    for addr, ln, mn, ops in insns:
        ra = addr + ln
        b = data[ra - N - base: ra - base]
        is_thumb = key == 'thumb' and (addr < 0x310028 or addr >= 0x310074)
        if len(b) < N:
            prev = (addr, ln, mn, ops)
            continue
        kind, target = 'NotCall', 0
        tm = re.match(r'([0-9a-f]+) <', ops)
        if mn in ('bl', 'blx', 'blne', 'call') and tm:
            kind, target = 'CallDirect', int(tm.group(1), 16)
        elif mn in ('blx', 'call', 'lcall', 'callw', 'blr', 'blraa', 'blrab', 'blraaz', 'blrabz', 'rex.W'):
            kind = 'CallIndirect'
        elif prev and prev[2] == 'mov' and prev[3] == 'lr, pc':
            kind = 'CallIndirect'
        if mn == 'callw':
            kind, target = 'CallIndirect', 0
        if key == 'thumb' and is_thumb:
            ra |= 1
            target &= ~1
        t = f'0x{target:x}' if kind == 'CallDirect' else '0'
        label = ('thumb' if is_thumb else 'arm') if key == 'thumb' else key
        print(f'\t{{"{label}: {mn} {ops.split("@")[0].split("#")[0].strip()}", {isa}, 0x{ra:x}, "{b.hex()}", CallSite{{{kind}, {t}}}}},')
        prev = (addr, ln, mn, ops)
