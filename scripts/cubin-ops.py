#!/usr/bin/env python3
"""Reads a cubin's machine code by opcode, without cuobjdump (this toolkit has none): for each kernel,
its instruction count, where its wgmmas lie, and where its register spills (STL/LDL) are, inside the
wgmma span (the tile loop: every spill there costs every tile) or outside it. What a branch's
`-Xptxas -v` spill bytes cannot say, checked here before any device time is spent. Build the cubin as
scripts/cubin-text-diff.py says, then

    scripts/cubin-ops.py X.cubin [KERNEL-SUBSTRING]
    scripts/cubin-ops.py --check X.cubin     exit 1 if any kernel spills inside its tile loop (CI)
    scripts/cubin-ops.py --self-test         synthetic kernels, one spilling inside its loop
    scripts/cubin-ops.py --raw X.cubin KERNEL-SUBSTRING OUT.bin   the one matching kernel's code, raw

The raw code reads with operands in an older nvdisasm, which takes bare instructions (`nvdisasm -b
SM90 OUT.bin`) where it cannot read this toolkit's cubins: CUDA 11.8's, from Debian bookworm's
non-free nvidia-cuda-toolkit (`apt-get download nvidia-cuda-toolkit` with non-free in the sources,
then `dpkg-deb -x`). It prints no QGMMA (the fp8 wgmma, newer than it), but everything around them:
the eleventh session found the 16-row walker's descriptor moves (R2UR) that way.

The opcode of an sm_90 instruction is the low 12 bits of its first 64-bit word; the names come from
scripts/sm90-opcodes.txt, learnt from a device's SASS listing (the sass.txt that
scripts/device-kernel-iter.sh brings back) with

    scripts/cubin-ops.py --learn sass.txt > scripts/sm90-opcodes.txt

Opcodes the listing never showed read as '?'.
"""
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
text_sections = __import__("cubin-text-diff").text_sections
TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sm90-opcodes.txt")


def learn(listing):
    names = {}
    for line in open(listing):
        m = re.match(r"\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+)[A-Z0-9_.]*.*/\* (0x[0-9a-f]{16}) \*/", line)
        if m:
            names.setdefault(int(m.group(2), 16) & 0xFFF, set()).add(m.group(1))
    clash = {k: v for k, v in names.items() if len(v) > 1}
    if clash:
        sys.exit(f"cubin-ops: {listing}: opcodes with two names: {clash}")
    print(f"# sm_90 opcode (low 12 bits of an instruction's first word) and its name; learnt from {os.path.basename(listing)}")
    for k in sorted(names):
        print(f"{k:#05x} {names[k].pop()}")


def load_table():
    table = {}
    for line in open(TABLE):
        if line.strip() and not line.startswith("#"):
            code, name = line.split()
            table[int(code, 16)] = name
    return table


def summarise(code, table):
    """A kernel's instruction count, the indices of its first and last wgmma (None without one) and
    of its spill instructions, and those of the spills that lie between the two."""
    ops = [table.get(struct.unpack_from("<Q", code, o)[0] & 0xFFF, "?") for o in range(0, len(code), 16)]
    gmma = [i for i, n in enumerate(ops) if n in ("HGMMA", "QGMMA")]
    spills = [i for i, n in enumerate(ops) if n in ("STL", "LDL")]
    inside = [i for i in spills if gmma and gmma[0] <= i <= gmma[-1]]
    return len(ops), (gmma[0], gmma[-1]) if gmma else None, spills, inside


def report(cubin, want):
    """Each kernel's line; returns how many have spills inside their wgmma span."""
    table, bad = load_table(), 0
    for fn, code in sorted(text_sections(cubin).items()):
        if want not in fn:
            continue
        n, span, spills, inside = summarise(code, table)
        where = f"wgmma span {16 * span[0]:#x}-{16 * span[1]:#x}" if span else "no wgmma"
        print(f"{fn}: {n} instructions, {where}; STL/LDL {len(spills)}, {len(inside)} inside the span"
              + (f" (at {', '.join(hex(16 * i) for i in inside)})" if inside else ""))
        bad += len(inside) > 0
    return bad


def self_test():
    """Synthetic kernels from the table's own codes: a spill between two wgmmas must be found, one
    before them must not."""
    code = {name: c for c, name in load_table().items()}
    word = lambda name: struct.pack("<QQ", code[name], 0)
    outside = b"".join(map(word, ["STL", "MOV", "QGMMA", "FADD", "HGMMA", "LDL"]))
    inside = b"".join(map(word, ["MOV", "QGMMA", "LDL", "HGMMA"]))
    got = [summarise(outside, load_table())[3], summarise(inside, load_table())[3]]
    ok = got == [[], [2]]
    print(f"{int(ok)} passed, {int(not ok)} failed" + ("" if ok else f": inside-span spills {got}, expected [[], [2]]"))
    return 0 if ok else 1


def main(argv):
    if len(argv) == 3 and argv[1] == "--learn":
        learn(argv[2])
        return 0
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) == 5 and argv[1] == "--raw":
        found = [(fn, code) for fn, code in text_sections(argv[2]).items() if argv[3] in fn]
        if len(found) != 1:
            print(f"cubin-ops: '{argv[3]}' matches {len(found)} kernels of {argv[2]}, not one: "
                  + ", ".join(sorted(fn for fn, _ in found) or sorted(text_sections(argv[2]))), file=sys.stderr)
            return 2
        with open(argv[4], "wb") as f:
            f.write(found[0][1])
        return 0
    if len(argv) == 3 and argv[1] == "--check":
        bad = report(argv[2], "")
        print(f"cubin-ops: {bad} kernel(s) with spills inside the tile loop" if bad else "cubin-ops: no spill inside any tile loop")
        return 1 if bad else 0
    if len(argv) not in (2, 3) or argv[1].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    report(argv[1], argv[2] if len(argv) == 3 else "")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
