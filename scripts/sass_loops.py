"""The tile loops of an sm_90 kernel's machine code, one rule for every reader of it (cubin-ops.py reads
a cubin's bytes, ncu-hot.py an Nsight Compute source table): the innermost loops, found by their
backward branches, that hold a wgmma. A backward branch closes a loop unless its region holds an EXIT:
ptxas puts a wait's retry out of line past the kernel's end and jumps back into the loop from there
(two such returns span the whole three-warpgroup kernel)."""


def tile_loops(ops, targets):
    """ops: each instruction's opcode name (HGMMA, QGMMA, EXIT, ...), by index; targets: {index of a
    branch: index it jumps to}. The loops as sorted (first, last) index pairs."""
    gmma = [i for i, n in enumerate(ops) if n in ("HGMMA", "QGMMA")]
    exits = [i for i, n in enumerate(ops) if n == "EXIT"]
    loops = [(t, i) for i, t in targets.items() if t <= i and not any(t <= e <= i for e in exits)]
    holding = [(a, b) for a, b in loops if any(a <= g <= b for g in gmma)]
    return sorted(set((a, b) for a, b in holding
                      if not any((c, d) != (a, b) and a <= c and d <= b for c, d in holding)))
