#!/usr/bin/env python3
"""Compares the machine code of two CUDA cubins, kernel by kernel (their .text.* sections).

Where a change should not alter a kernel (a comment, a refactor, a blank line), identical machine
code proves it without a GPU: the timings measured on the old code then stand for the new one. The
toolkit here has no cuobjdump, so the ELF sections are read directly. Build each side with
    nvcc -x cu -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -cubin kernels/decode_sm90.hip -o X.cubin
(once on the old tree, e.g. after `git stash`, once on the new) and run
    scripts/cubin-text-diff.py OLD.cubin NEW.cubin
Exit 0 when every kernel's code is identical, 1 otherwise (and per kernel: sizes, how many of its
16-byte instructions differ), 2 on a file that is not a 64-bit ELF. Only the code is compared: a
kernel's registers and shared memory live in other sections (compare `-Xptxas -v` for those).
"""
import struct
import sys


def text_sections(path):
    data = open(path, 'rb').read()
    if data[:5] != b'\x7fELF\x02':
        print('%s: not a 64-bit ELF file' % path, file=sys.stderr)
        sys.exit(2)
    shoff = struct.unpack_from('<Q', data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3A)
    heads = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize) for i in range(shnum)]
    names = heads[shstrndx][4]
    out = {}
    for name_off, kind, _, _, off, size, *_ in heads:
        name = data[names + name_off:data.index(b'\0', names + name_off)].decode()
        if name.startswith('.text.'):
            out[name[len('.text.'):]] = data[off:off + size] if kind != 8 else b''
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    old, new = text_sections(sys.argv[1]), text_sections(sys.argv[2])
    same = True
    for name in sorted(set(old) | set(new)):
        a, b = old.get(name), new.get(name)
        if a is None or b is None:
            print('%s: only in %s' % (name, sys.argv[1] if b is None else sys.argv[2]))
            same = False
        elif a == b:
            print('%s: identical (%d instructions)' % (name, len(a) // 16))
        else:
            n = sum(1 for i in range(0, min(len(a), len(b)), 16) if a[i:i + 16] != b[i:i + 16])
            print('%s: differs: %d vs %d instructions, %d of the common ones differ' % (name, len(a) // 16, len(b) // 16, n))
            same = False
    return 0 if same else 1


if __name__ == '__main__':
    sys.exit(main())
