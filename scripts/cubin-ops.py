#!/usr/bin/env python3
"""Reads a cubin's machine code by opcode, without cuobjdump (this toolkit has none): for each kernel,
its instruction count, its tile loops (the innermost loops, found by their backward branches, that
hold a wgmma) with each one's length in instructions, and where its register spills (STL/LDL) are,
inside a tile loop (every spill there costs every tile) or outside. (Before the three-warpgroup
kernel this took the span from the first wgmma to the last, which there covers the multipliers'
stores and the scorer's set-up.) What a branch's `-Xptxas -v` spill bytes cannot say, checked here
before any device time is spent. Build the cubin as scripts/cubin-text-diff.py says, then

    scripts/cubin-ops.py X.cubin [KERNEL-SUBSTRING]
    scripts/cubin-ops.py --check X.cubin     exit 1 if any kernel spills inside its tile loop (CI)
    scripts/cubin-ops.py --check-none X.cubin   exit 1 if any kernel spills at all (CI, on the sm90
                                             kernels: ptxas has hoisted per-thread addresses out of a
                                             unit loop onto the stack three times: v93, v95, v100)
    scripts/cubin-ops.py --self-test         synthetic kernels, spilling inside and outside their loops
    scripts/cubin-ops.py --raw X.cubin KERNEL-SUBSTRING OUT.bin   the one matching kernel's code, raw
    scripts/cubin-ops.py --ops X.cubin KERNEL-SUBSTRING   each tile loop's instructions by opcode,
                                             most frequent first (what a role issues a tile, before
                                             branches: a path that rarely runs counts in full)

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
import collections
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
text_sections = __import__("cubin-text-diff").text_sections
from sass_loops import tile_loops  # noqa: E402 (after the path)
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


def branch_target(lo, hi, i):
    """The instruction index a plain BRA at index i jumps to, or None for the warp-uniform form
    (BRA.U.ANY: the mbarrier wait's spin loops, bit 84 set, which hold no wgmma). The offset, learnt
    from 184 branches of nvdisasm 11.8's listing of this kernel and checked on every kernel here, is
    4 x (bits 16-23 + 64 x bits 32-81 signed) bytes past the next instruction."""
    if (hi >> 20) & 1:
        return None
    far = ((hi & 0x3FFFF) << 32) | (lo >> 32)
    if far >> 49:
        far -= 1 << 50
    off = 4 * (((lo >> 16) & 0xFF) + 64 * far)
    return None if off % 16 else i + 1 + off // 16


def opcodes(words, table):
    """Each instruction's opcode name (its first word's low 12 bits, '?' where the table has none)."""
    return [table.get(lo & 0xFFF, "?") for lo, _ in words]


def summarise(code, table):
    """A kernel's opcodes (opcodes), its tile loops (index ranges: the innermost loops, by their
    backward branches, that hold a wgmma) and the indices of its spill instructions, and those of
    the spills inside a tile loop. A kernel whose wgmmas lie in no loop has its wgmma span checked
    instead. Per loop, not per kernel: the three-warpgroup kernel's roles each have their own tile
    loop, and the multipliers' stores between the two are no tile's cost."""
    words = [struct.unpack_from("<QQ", code, o) for o in range(0, len(code), 16)]
    ops = opcodes(words, table)
    gmma = [i for i, n in enumerate(ops) if n in ("HGMMA", "QGMMA")]
    spills = [i for i, n in enumerate(ops) if n in ("STL", "LDL")]
    targets = {i: t for i, (lo, hi) in enumerate(words)
               if ops[i] == "BRA" and (t := branch_target(lo, hi, i)) is not None}
    tiles = tile_loops(ops, targets)
    if gmma and not tiles:
        tiles = [(gmma[0], gmma[-1])]
    inside = [i for i in spills if any(a <= i <= b for a, b in tiles)]
    return ops, tiles, spills, inside


def loop_ops(code, table):
    """Each tile loop's (first index, length, Counter of its opcodes)."""
    ops, tiles, _, _ = summarise(code, table)
    return [(a, b - a + 1, collections.Counter(ops[a:b + 1])) for a, b in tiles]


def report(cubin, want, anywhere=False):
    """Each kernel's line; returns how many have spills inside a tile loop (anywhere: at all)."""
    table, bad = load_table(), 0
    for fn, code in sorted(text_sections(cubin).items()):
        if want not in fn:
            continue
        ops, tiles, spills, inside = summarise(code, table)
        # Each loop's length in instructions: where a tile is bound by issue (the three-warpgroup
        # kernel's, results/NOTES.md, twenty-first session), what each role's loop issues a tile.
        where = "tile loops " + ", ".join(f"{16 * a:#x}-{16 * b:#x} ({b - a + 1})" for a, b in tiles) if tiles else "no wgmma"
        print(f"{fn}: {len(ops)} instructions, {where}; STL/LDL {len(spills)}, {len(inside)} inside a tile loop"
              + (f" (at {', '.join(hex(16 * i) for i in inside)})" if inside else ""))
        bad += len(spills if anywhere else inside) > 0
    return bad


def self_test():
    """Synthetic kernels from the table's own codes, with backward branches encoded as the hardware
    does: a spill in a loop that holds a wgmma must be found; one before the loop, one between two
    roles' loops, one in an outer (unit) loop around a tile loop, and one in a spin loop must not."""
    code = {name: c for c, name in load_table().items()}
    word = lambda name: struct.pack("<QQ", code[name], 0)

    def back(k, uniform=False):   # a BRA to the instruction k before it
        q = -4 * (k + 1)
        far = q // 64
        lo = code["BRA"] | ((q - 64 * far) << 16) | ((far & 0xFFFFFFFF) << 32)
        return struct.pack("<QQ", lo, ((far >> 32) & 0x3FFFF) | (uniform << 20))

    seq = lambda *parts: b"".join(p if isinstance(p, bytes) else word(p) for p in parts)
    cases = [
        ("a spill in the tile loop", seq("MOV", "QGMMA", "LDL", "HGMMA", back(3)), [2]),
        ("a spill in the tile loop, past its last wgmma", seq("QGMMA", "HGMMA", "FADD", "STL", back(4)), [3]),
        ("a spill before the loop", seq("STL", "QGMMA", "FADD", "HGMMA", back(2), "LDL"), []),
        ("a spill between two roles' loops", seq("QGMMA", back(1), "STL", "LDL", "HGMMA", back(1)), []),
        ("a spill in the unit loop around the tile loop", seq("LDL", "QGMMA", "FADD", back(2), "STL", back(5)), []),
        ("a spill in a spin loop", seq("QGMMA", back(1), "LDL", "MOV", back(1, True)), []),
        ("a spill past an EXIT, before a jump back into the loop",
         seq("MOV", "QGMMA", "FADD", back(3), "EXIT", "LDL", back(5)), []),
        ("a branch forward does not make a loop", seq("QGMMA", "LDL", "HGMMA", "MOV"), [1]),
    ]
    failed = [f"{name}: inside {got}, expected {want}" for name, c, want in cases
              if (got := summarise(c, load_table())[3]) != want]
    # --check-none counts every spill, in a loop or not, and a kernel without one passes it.
    failed += [f"{name}: its spill not counted" for name, c, _ in cases if not summarise(c, load_table())[2]]
    if summarise(seq("MOV", "QGMMA", "HGMMA", back(2), "EXIT"), load_table())[2]:
        failed.append("a kernel without spills: a spill counted")
    # --ops counts a loop's own instructions, not those before it or after its branch back.
    c = loop_ops(seq("MOV", "FADD", "QGMMA", "FADD", "FADD", back(3), "FADD"), load_table())
    if [(a, n, k["FADD"], k["QGMMA"], k["MOV"]) for a, n, k in c] != [(2, 4, 2, 1, 0)]:
        failed.append(f"a loop's opcodes: got {[(a, n, dict(k)) for a, n, k in c]}")
    checks = 2 * len(cases) + 2
    for f in failed:
        print("FAIL", f)
    print(f"{checks - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


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
    if len(argv) == 4 and argv[1] == "--ops":
        found = 0
        for fn, code in sorted(text_sections(argv[2]).items()):
            if argv[3] in fn:
                found += 1
                for a, n, counts in loop_ops(code, load_table()):
                    print(f"{fn} loop {16 * a:#x} ({n}): " + ", ".join(f"{op} {k}" for op, k in counts.most_common()))
        return 0 if found else 2
    if len(argv) == 3 and argv[1] == "--check":
        bad = report(argv[2], "")
        print(f"cubin-ops: {bad} kernel(s) with spills inside the tile loop" if bad else "cubin-ops: no spill inside any tile loop")
        return 1 if bad else 0
    if len(argv) == 3 and argv[1] == "--check-none":
        bad = report(argv[2], "", anywhere=True)
        print(f"cubin-ops: {bad} kernel(s) with spills" if bad else "cubin-ops: no spill in any kernel")
        return 1 if bad else 0
    if len(argv) not in (2, 3) or argv[1].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    report(argv[1], argv[2] if len(argv) == 3 else "")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
