/* Per-tile clock stamps of the rows-split, alternate-tile and scorer-and-multiplier walkers
 * (sm90_unit_rs.h, sm90_unit_pp.h, sm90_unit_pc.h and sm90_unit_ps.h; not decode_sm90.hip's dims-split one, for small pages), in
 * builds made with `make TRACE=1` only: when each tile's copy was issued, and when each warpgroup
 * reached the tile, had its data, had summed its scores, had finished its softmax and had issued its
 * P V; when each unit started and had Q landed and cast, and how its end went (its last P V waited
 * for, its row sums, its stores). Profiles sample where warps wait; these stamps say for what, in
 * time: how far the warpgroups drift apart, how long a copy takes from issue to landing, and how much
 * of that the ring hides (scripts/trace-tiles.py reads them). One thread a warpgroup stores a stamp (a
 * shared load, a clock read and a global store), so the kernel's timing moves little, but a trace
 * build's times are not the kernel's: time the plain build. Stamps are SM clock cycles (clock64),
 * comparable only within a CTA; trace-tiles.py turns them into µs at the SM's maximum clock, so under
 * a lower clock its µs read short.
 * Without MB_TRACE every stamp compiles to nothing. */
#ifndef MB_SM90_TRACE_H
#define MB_SM90_TRACE_H

#include <stdint.h>

/* A CTA's tiles are numbered by its copy sequence, across its units: unit_run_rs's seq0 + it, both
 * warpgroups stamping each tile; unit_run_pp's warpgroup w stamps its j-th tile at 2 (seq0 + j) + w
 * (its seq counts its own tiles), the other warpgroup's fields of that slot left 0. */
#define S9_TRACE_CTAS 160                 /* CTAs and tiles past these are not stamped */
#define S9_TRACE_TILES 512
enum s9_trace_field {
    S9T_ISSUE = 0,                /* the tile's copy issued */
    S9T_TOP = 1,                  /* + warpgroup: at the tile's top, the previous P V waited for */
    S9T_READY = 3,                /* + warpgroup: the tile's data waited for */
    S9T_SOFTMAX = 5,              /* + warpgroup: P^T stored (softmax_to_pt returned) */
    S9T_END = 7,                  /* + warpgroup: the P V issued, the stage's reads fenced */
    /* A unit's start, at its first tile (thread 0): entered, Q landed in shared memory, Q cast (or,
     * for Q cast straight from global memory or loaded as fp8, both at Q's barrier). */
    S9T_UNIT = 9,
    S9T_Q_LANDED = 10,
    S9T_Q_CAST = 11,
    S9T_SCORED = 12,              /* + warpgroup: the score wgmmas summed (score_tile returned) */
    S9T_STORED = 14,              /* a unit's rows stored (thread 0, past the unit's last barrier; first tile) */
    S9T_ENTRY = 15,               /* the CTA's start (tile 0 only) */
    /* A unit's end, split (its first tile's slot): + warpgroup, its last P V waited for and its rows'
     * sums written; thread 0 past the CTA barrier where the stores start (64 rows: the one after the
     * sums; alternate tiles: the one after the warpgroups' merge; 32 rows: none). S9T_STORED follows
     * the stores' issue. */
    S9T_DRAINED = 16,
    S9T_SUMMED = 18,
    S9T_SYNCED = 20,
    /* The 64-row walker's first scorer (sm90_unit_ps.h; the one scorer before v119; in units scored on
     * alternate tiles, since v123, each tile's own scorer, so that "s wait" means nothing there), each tile: its
     * data waited for, its score wgmmas summed, its P made, the multipliers' release of the tile two
     * back waited for, P handed over. Its two multipliers stamp TOP, READY, SOFTMAX (P received) and
     * END + warpgroup, as the rows-split walker's warpgroups do, and at a unit's end DRAINED and
     * SUMMED (at once: the scorers sum the rows) and SYNCED (the scorers' sums received). */
    S9T_PC_READY = 21,
    S9T_PC_SCORED = 22,
    S9T_PC_SOFTMAX = 23,
    S9T_PC_EMPTY = 24,
    S9T_PC_FULL = 25,
    /* The entry's steps (thread 0, tile 0): past the barrier after the mbarriers' set-up; in the
     * 64-row walker, past the multipliers' setmaxnreg, then the CTA's first unit in from the launch's
     * parameters (stamped under a condition on its value, so that the clock waits for the load;
     * stamped earlier, at the kernel's entry, the call alone changed a plain build's machine code). */
    S9T_ENTRY_SYNCED = 26,
    S9T_ENTRY_PARAMS = 27,
    S9T_ENTRY_ROLE = 28,
    S9T_FIELDS = 29
};

#ifdef MB_TRACE
__device__ uint64_t s9_trace_buf[S9_TRACE_CTAS][S9_TRACE_TILES][S9T_FIELDS];
/* A bar.sync compiles to BAR.SYNC.DEFER_BLOCKING: the warp goes on issuing past it until an
 * instruction needs the barrier, so a bare clock read right after one records the warp's arrival, not
 * its release (the seventeenth session's trace had the multipliers "receive" P 0.56 us before the
 * scorer handed it over, and every unit's "barrier" read 0.01 us). A shared-memory load does wait for
 * the barrier (Nsight Compute put the wait on the load after it), so the clock is read under a
 * predicate taken from that load's value. Every stamp pays the load (~30 cycles on its warp). */
__device__ __forceinline__ void s9_stamp(uint32_t tile, int field)
{
    if (blockIdx.x < S9_TRACE_CTAS && tile < S9_TRACE_TILES) {
        uint32_t v;
        uint64_t c = 1;            /* 1 only if the CTA's first shared word held 0xffffffff: no clock */
        asm volatile("ld.volatile.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(0u) : "memory");
        asm volatile("{\n.reg .pred p;\nsetp.ne.u32 p, %1, 0xffffffff;\n@p mov.u64 %0, %%clock64;\n}\n" : "+l"(c) : "r"(v));
        s9_trace_buf[blockIdx.x][tile][field] = c;
    }
}
/* Thread 0's stamp once `v` has arrived (a load's result): the condition makes the clock read wait
 * for it. */
__device__ __forceinline__ void s9_stamp_after(int v, uint32_t tile, int field)
{
    if (threadIdx.x == 0 && v != -1 - 0x7fffffff) s9_stamp(tile, field);
}
#else
__device__ __forceinline__ void s9_stamp(uint32_t, int) {}
/* (Nothing: a plain build's machine code must not change. Even so, a call of it at the kernel's
 * entry on the first unit's field redrew the 64-row kernel's; where that unit is used next it does
 * not.) */
__device__ __forceinline__ void s9_stamp_after(int, uint32_t, int) {}
#endif

#endif
