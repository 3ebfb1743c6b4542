/* The pieces both sm90 unit walkers share (decode_sm90.hip: warpgroups split a tile's rows and dims;
 * sm90_unit_pp.h: warpgroups take alternate tiles): sizes, the copies of KV tiles and of Q, the fused
 * Q cast, and the store of a finished unit. Hopper only (sm_90a), included by decode_sm90.hip. */
#ifndef MB_SM90_UNIT_H
#define MB_SM90_UNIT_H

#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include "common.h"
#include "sm90_wgmma.h"

#define S9_THREADS 256
#define S9_MAX_ROWS 64
#define S9_TILE 64
#define S9_STAGES 3                             /* decode_sm90.hip's walker */
#define S9_KSBO (MB_DK / 16 * W9_LBO)           /* Q's row-group stride: 36 core matrices */
#define S9_TILE_BYTES (S9_TILE * MB_DK)
#define S9_SLICE (S9_TILE * 64)                 /* a 64-byte slice of every row of a tile (w9_sw64_off) */
/* V^T and P^T (f16, K = 64 tokens = 8 core matrices): 1024 bytes a row group plus 16, so the 8 row
 * groups a warp's transposed stores touch fall on different banks. */
#define S9_HSBO (S9_TILE * 2 / 16 * W9_LBO + 16)
/* The output's factor that undoes V's widening in the shared V^T copy of the dims-split walker's
 * 64-row units: w9_f16x2_even / odd (sm90_wgmma.h) give the codes x 2^-8. Register fragments
 * (w9_vt_fragment) hold the codes' own values and need none. */
#define S9_VT_COPY_UNSCALE 256.0f
/* Row stride (floats) of a finished unit staged for its store: 4 rows of one store hit different banks. */
#define S9_OS (MB_DV + 4)

/* The warpgroup's index, broadcast from lane 0 so that the compiler knows it is the same on every lane
 * of the warp: addresses and wgmma descriptors made from it (Q's rows, P^T, a warpgroup's stages) can
 * then be built in uniform registers, where from threadIdx.x / 128 each thread built them in its own
 * registers and moved them to uniform ones before every wgmma (R2UR: ~100 a warp a tile, 6 % of the
 * instructions of the 64-row walker in v33's profile). */
__device__ __forceinline__ int s9_warpgroup() { return __shfl_sync(0xffffffffu, (int)threadIdx.x / 128, 0); }

/* 2^x by the MUFU unit alone (ex2.approx.ftz: about 2 ulp). exp2f compiles to ex2.approx without
 * .ftz, which wraps the MUFU in a range check and two multiplies to get fp32 subnormals right; nothing
 * here needs them: P goes to f16 (whose smallest subnormal is 2^-24), and terms under 2^-126 in l,
 * alpha or the merge are far below fp32's resolution of what they are added to or scale. */
__device__ __forceinline__ float exp2_ftz(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

/* log2 x by the MUFU unit alone (lg2.approx.ftz: error ~2^-22, absolute near x = 1, relative away
 * from it), for a row's log-sum-exp, whose sum is >= 1 (its largest term is exactly 1) or 0 (tested
 * apart): a few 1e-6 of a merge weight at most. log2f's accurate polynomial sat behind branches, one
 * row after another in one warp: most of the ~1.3 us of a 64-row unit's row-sum phase on split
 * shapes (the trace's "sums", fifteenth session). */
__device__ __forceinline__ float log2_ftz(float x)
{
    float y;
    asm("lg2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

/* Two floats as one f16x2 word, lo in the low half (round to nearest even, as __float2half_rn). */
__device__ __forceinline__ uint32_t f16x2_of(float lo, float hi)
{
    uint32_t d;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(d) : "f"(hi), "f"(lo));
    return d;
}

/* Two floats as one bf16x2 word, lo in the low half, by one cvt (round to nearest even, as
 * mb_f32_to_bf16, whose bit arithmetic takes ~7 instructions a value). Used by store_unit (v78) and,
 * since v147, by the rows-split walkers' stores (rs_store_pairs), where v76 had lost more to the
 * two-warpgroup walker's rescheduled tile loop than the stores gained. */
__device__ __forceinline__ uint32_t bf16x2_of(float lo, float hi)
{
    uint32_t d;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(d) : "f"(hi), "f"(lo));
    return d;
}

/* 1 / x by the MUFU unit alone (rcp.approx.ftz: about 1 ulp), for a row's normalisation: x is a row's
 * sum, >= 1 (the term of the token that set its reference is exactly 1, and references only rise) or
 * 0 (tested apart). A division compiles to a checked reciprocal with a slow-path call behind a branch,
 * one a row. Used by store_unit and the merge (v78) and the 32-row rows-split walker's store (v148r). */
__device__ __forceinline__ float rcp_ftz(float x)
{
    float y;
    asm("rcp.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

/* One warp's part of P^T (f16, rows x 64 tokens in w9_off's layout, row-group stride S9_HSBO): rows
 * [row0, row0 + 8 RB) at its 16 tokens [tok0, tok0 + 16). The softmax leaves lane (g, t) = (lane / 4,
 * lane % 4) holding, for each 8-row block j and half h, rows 8j + 2t and 8j + 2t + 1 at token
 * tok0 + 8h + g: exactly its fragment of the 8 x 8 matrix (rows 8j.., tokens tok0 + 8h..) that
 * stmatrix.trans stores, each of the matrix's rows being one 16-byte core-matrix row. So pk[j][h] =
 * f16x2_of(row 8j + 2t, row 8j + 2t + 1), and one stmatrix stores four matrices (two row blocks) where
 * 16-bit stores took 16: lanes 8i..8i+7 give the addresses of matrix i's rows. */
template <int RB>
__device__ __forceinline__ void store_pt(uint32_t p_addr, int row0, int tok0, const uint32_t (&pk)[RB][2])
{
    static_assert(RB % 2 == 0, "four matrices a stmatrix: row blocks in pairs");
    const int lane = threadIdx.x % 32, mi = lane / 8, r = lane % 8;
#pragma unroll
    for (int j = 0; j < RB; j += 2) {
        const uint32_t a = p_addr + w9_off(row0 + 8 * (j + mi / 2) + r, 2 * (tok0 + 8 * (mi % 2)), S9_HSBO);
        asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n"
                     ::"r"(a), "r"(pk[j][0]), "r"(pk[j][1]), "r"(pk[j + 1][0]), "r"(pk[j + 1][1]) : "memory");
    }
}

/* Online softmax with a lazy reference: a row's running max m (base 2, scaled) moves only when a
 * tile's max passes it by more than S9_REF_SLACK, so O's rescale (alpha x every accumulator: 64-128
 * multiplies a thread a tile, ~7 % of the 64-row walker's instructions) runs on the first tile and
 * where a row's scores jump, not on every tile. In between P = 2^(s - m) reaches at most 2^8: f16 P
 * keeps its 11 bits and O, l are fp32. O and l share the reference, and the unit's (m, l) go to the
 * combine with it, so the result is the same softmax. Returns whether m moved; gives the value to
 * subtract from this tile's scores (ms) and O's and l's factor (alpha). A row that has seen no token
 * keeps m = -inf; subtracting 0 instead keeps exp2 off NaN (-inf - -inf), and its alpha is then 0
 * where 1 is exact: both multiply o = l = 0. */
#define S9_REF_SLACK 8.0f
__device__ __forceinline__ bool move_ref(float &m, float tile_max, float &ms, float &alpha)
{
    const bool moved = tile_max > m + S9_REF_SLACK;    /* -inf + 8 is -inf: a row's first token moves it */
    const float ref = moved ? tile_max : m;
    ms = ref == -INFINITY ? 0.0f : ref;
    alpha = moved ? exp2_ftz(m - ms) : 1.0f;
    m = ref;
    return moved;
}

__device__ __forceinline__ void cp16(uint32_t dst, const void *src, bool valid)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }
/* Test builds only (build/mla-bench-stall, run by test-gpu; MB_DIAG_STALL_TILE = 5): each role of a
 * walker whose roles run apart stalls 50 us at one tile of every unit, so that the others run as far
 * ahead as the barriers let them: the 64-row walker's multipliers at tile 5 and scorer sh at tile
 * 8 + sh, the 32-row walker's warpgroup wg at tile 5 + 3 wg, the 16-row one's at its own tile
 * 5 + 3 wg. A barrier generation that two tiles can share then deadlocks every time, not once in a
 * rare timing (the 64-row walker's SCORED barriers by parity did, with the multipliers' stall, on
 * alternate tiles: thirty-fifth session). Nothing in other builds. */
#ifdef MB_DIAG_STALL_TILE
__device__ __forceinline__ void s9_diag_stall(int it, int after)
{
    if (it == MB_DIAG_STALL_TILE + after)
        for (int i = 0; i < 50; i++) __nanosleep(1000);
}
#else
__device__ __forceinline__ void s9_diag_stall(int, int) {}
#endif
__device__ __forceinline__ void wg_sync(int wg) { asm volatile("bar.sync %0, 128;\n" ::"r"(1 + wg) : "memory"); }

/* Tile [t0, t0 + 64) of the unit into stage `st`, issued by the group of nthreads threads that all
 * call this (tid = the caller's index in it), which later waits for it with tile_wait.
 * Where a tile is one run of the cache (a flat cache, or pages of a multiple of 64 tokens: units start
 * at multiples of 64 tokens of their batch) one thread hands the TMA unit one 3-D box (64 bytes x 64
 * rows x 9 slices), counted down on the stage's barrier: no thread holds the copy after that (per-thread
 * cp.async, which kept address registers busy until the load unit took them, was the kernel's largest
 * stall: results/NOTES.md, v10-v15). Other pages go by cp.async: each token's row resolved once through
 * the page table by the threads that copy it, one commit group a tile. (The TMA unit would need a box a
 * page there, issued lane by lane since its operands are uniform: 16-token pages cost 59 %, 1-token
 * pages 8x over a flat cache that way, results/NOTES.md, v21.) Rows past the unit's end read another
 * row of the cache, finite fp8 codes that P = 0 multiplies; past the cache's end the TMA fills zeros. */
/* Where a unit's batch lies: kv_indptr[b] (the unit's kv_start) and, in a paged cache, page_indptr[b],
 * which a CTA's first unit has from its launch (first_units.h) and a later one loads at its start
 * (s9_kv_base_of): every lookup is then one load, the page table's entry (v133d). */
struct s9_kv_base {
    int32_t start, page0;
};
__device__ __forceinline__ s9_kv_base s9_kv_base_of(const mb_decode_args_t &a, const mb_work_t &u)
{
    return { u.kv_start, a.pages.table ? a.pages.page_indptr[u.batch] : 0 };
}

__device__ __noinline__ void copy_tile_paged(uint32_t st, const mb_decode_args_t &a, s9_kv_base kb, int t0, int t1, int tid, int nthreads)
{
    const int per = nthreads / S9_TILE, tok = tid / per, t = t0 + tok;
    const uint8_t *src = a.kv + (t < t1 ? mb_kv_row_at(a.pages, kb.start, kb.page0, t) : 0) * MB_DK;
#pragma unroll 1
    for (int c = tid % per; c < MB_DK / 16; c += per) cp16(st + w9_sw64_off(tok, 16 * c, S9_TILE), src + 16 * c, true);
}
template <class KV>
__device__ __forceinline__ void issue_tile(uint32_t st, uint64_t *bar, const KV map, const mb_decode_args_t &a,
                                           s9_kv_base kb, int t0, int t1, int tid, int nthreads)
{
    if (a.kv_map.whole_tile) {
        if (tid == 0) {
            w9_mbar_expect(bar, S9_TILE_BYTES);
            w9_tma_load_tile(st, map, (int)mb_kv_row_at(a.pages, kb.start, kb.page0, t0), bar);
        }
    } else {
        copy_tile_paged(st, a, kb, t0, t1, tid, nthreads);
        cp_commit();
    }
}
/* Until the tile issue_tile started has landed: the stage's barrier (phase `parity`), or this thread's
 * own copies, `newer` saying whether the group of one later tile may stay in flight. Callers then fence
 * (w9_fence_proxy: the copies are generic-proxy writes, the wgmma reads in the async proxy) and meet at
 * a barrier, so that everyone's copies are in. */
__device__ __forceinline__ void tile_wait(const mb_decode_args_t &a, uint64_t *bar, uint32_t parity, bool newer)
{
    if (a.kv_map.whole_tile) w9_mbar_wait(bar, parity);
    else if (newer) cp_wait<1>();
    else cp_wait<0>();
}

/* A unit's KV end (one token short under the planted drop-token bug, for the unit that ends its
 * batch) and its number of 64-token tiles. */
struct unit_span {
    int kv_end, ntiles;
};
__device__ __forceinline__ unit_span unit_span_of(const mb_decode_args_t &a, const mb_work_t &u)
{
    int kv_end = u.kv_end;
    if (a.fault == MB_FAULT_DROP_TOKEN && kv_end == u.kv_start + u.kv_len) kv_end -= 1;
    return { kv_end, kv_end > u.kv_begin ? (kv_end - u.kv_begin + S9_TILE - 1) / S9_TILE : 0 };
}

/* The (logical) token end row r of the unit may see (causal: its query's position); rows past
 * `rows` see none. */
__device__ __forceinline__ int row_token_end(const mb_decode_args_t &a, const mb_work_t &u, int r, int rows, int kv_end)
{
    const int row = u.row_begin + r, seen = a.causal ? u.kv_len - (a.q_len - 1 - row / a.heads) : u.kv_len;
    return r < rows ? min(u.kv_start + seen, kv_end) : 0;
}

/* Piece i of cast_q_rows' writes of a unit's K-major Q tile (N rows of 36 pieces of 16 bytes) -> its
 * row and piece. Lanes 8 apart take the same row: the 8 lanes of a quarter warp take one piece of the
 * 8 rows of a row group, 16 bytes apart in w9_off, so their writes fill all 32 banks; the piece moves
 * on by the row pair, so that their loads of rows staged 1152 bytes apart (the same banks) do too.
 * v63 and earlier gave consecutive lanes consecutive pieces of one row, 128 bytes apart in w9_off,
 * all in the same four banks: ~30 shared-memory wavefronts a 16-byte store where 4 do (simulated on a
 * warp's addresses), by that count most of the 2.0 µs cast of a 64-row unit in v55's trace. (v65
 * used the same order for the 32-row walker's cast straight from global memory, cast_q_global: its
 * two 32-row shapes took 2-5 % longer, with or without the skew, so that one keeps v63's order.) */
__device__ __forceinline__ void q_piece(int i, int &r, int &c)
{
    constexpr int PER_ROW = MB_DK / 16;
    const int rr = i & 7, j = i >> 3, grp = j / PER_ROW;
    r = 8 * grp + rr;
    c = j - grp * PER_ROW + rr / 2;
    if (c >= PER_ROW) c -= PER_ROW;
}

/* Q rows of the unit, all by cp.async in the first tile's copy group (one DRAM latency, not one per
 * piece); rows past `rows` are zero-filled (their outputs are never written). fp8 Q lands in the
 * K-major tile directly; bf16 Q (the fused cast) lands row-major in `staging` for cast_q. */
template <int N>
__device__ __forceinline__ void load_q(uint8_t *staging, uint8_t *q, const mb_decode_args_t &a, int64_t qrow0, int rows)
{
    if (a.q_src_cast) {
        const uint8_t *src = (const uint8_t *)a.q_src_cast;
        for (int i = threadIdx.x; i < N * (MB_DK * 2 / 16); i += S9_THREADS) {
            int r = i / (MB_DK * 2 / 16), c = i % (MB_DK * 2 / 16);
            cp16(w9_smem_addr(staging) + 16 * i, r < rows ? src + ((qrow0 + r) * MB_DK * 2 + 16 * c) : src, r < rows);
        }
        return;
    }
    for (int i = threadIdx.x; i < N * (MB_DK / 16); i += S9_THREADS) {
        int r = i / (MB_DK / 16), c = i % (MB_DK / 16);
        cp16(w9_smem_addr(q) + w9_off(r, 16 * c, S9_KSBO), r < rows ? a.q + (qrow0 + r) * MB_DK + 16 * c : a.q,
             r < rows);
    }
}

/* Four bf16 (two words) -> four e4m3 codes in one word, by the hardware's cvt.rn.satfinite: the
 * same round-to-nearest-even and clamp at +-448 as mb_f32_to_fp8 (which mb_launch_qcast and the
 * check use); sm90-layout-test compares the two on all 65536 bf16 values. */
__device__ __forceinline__ uint32_t cast4(uint32_t x, uint32_t y)
{
    float2 a = make_float2(__uint_as_float(x << 16), __uint_as_float(x & 0xffff0000u));
    float2 b = make_float2(__uint_as_float(y << 16), __uint_as_float(y & 0xffff0000u));
    return (uint32_t)__nv_cvt_float2_to_fp8x2(a, __NV_SATFINITE, __NV_E4M3) |
           ((uint32_t)__nv_cvt_float2_to_fp8x2(b, __NV_SATFINITE, __NV_E4M3) << 16);
}

/* The cast-free cast, fused: staged bf16 Q -> saturating fp8 (scale 1) in the K-major tile; row(r)
 * is where row r's 1152 bytes of bf16 were staged. Every piece a thread casts is read before the first
 * is converted: one shared-memory latency, not one a piece (v40's loop waited on each piece's loads:
 * ~5 % of a b32-q4-1k unit's samples on the first use of the loaded words). The pieces go in
 * q_piece's order, free of bank conflicts. */
template <int N, typename Row>
__device__ __forceinline__ void cast_q_rows(Row row, uint8_t *q, int tid = threadIdx.x)
{
    constexpr int PIECES = N * (MB_DK / 16), PER = (PIECES + S9_THREADS - 1) / S9_THREADS;
    uint4 v[PER][2];
#pragma unroll
    for (int k = 0; k < PER; k++) {
        const int i = tid + k * S9_THREADS;
        int r, c;
        q_piece(i, r, c);
        if (PIECES % S9_THREADS == 0 || i < PIECES) {
            const uint4 *src = (const uint4 *)(row(r) + 32 * c);
            v[k][0] = src[r & 1], v[k][1] = src[(r & 1) ^ 1];   /* odd rows read their second half first */
        }
    }
#pragma unroll
    for (int k = 0; k < PER; k++) {
        const int i = tid + k * S9_THREADS;
        int r, c;
        q_piece(i, r, c);
        if (PIECES % S9_THREADS == 0 || i < PIECES) {
            const uint4 lo = r & 1 ? v[k][1] : v[k][0], hi = r & 1 ? v[k][0] : v[k][1];
            const uint32_t h[8] = { lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w };
            *(uint4 *)&q[w9_off(r, 16 * c, S9_KSBO)] =
                make_uint4(cast4(h[0], h[1]), cast4(h[2], h[3]), cast4(h[4], h[5]), cast4(h[6], h[7]));
        }
    }
}
/* Q staged row-major in one area (load_q). */
template <int N>
__device__ __forceinline__ void cast_q(const uint8_t *staging, uint8_t *q)
{
    cast_q_rows<N>([staging](int r) { return staging + r * MB_DK * 2; }, q);
}

/* The steps of a tile that the walkers share, on one warpgroup's NH = 8 RB score rows. Layouts (the
 * m64nN accumulator, sm90_wgmma.h): s[4j + e] is token 16 warp + g + 8 (e / 2) of the tile, row
 * 8j + 2t + e % 2 of the warpgroup's rows (g = lane / 4, t = lane % 4).
 *
 * S^T of one tile (fp8 wgmma, 576 deep). Hopper's fp8 wgmma keeps ~14 bits while it accumulates:
 * over all 576 dims its error reaches 2.1e-3 of the rms (sm90-layout-test), which cost 3.8e-2 on the
 * check's worst case; one accumulator over two 32-deep steps still cost 5.6e-3. So every step starts
 * from zero and is summed in fp32 registers (2.4e-3 there, the bf16 output's own rounding being
 * 1.9e-3), through a ring of R accumulators, each its own commit group: R - 1 in flight while one is
 * summed. The last wait (none younger) also covers every earlier wgmma of the warpgroup.
 * With ROWS_M the product is S itself, the rows as M and the tokens as N (the 64-row walker's
 * scorers on short units, ps_score_split, NH = 32 tokens each: a row stays in a quad of lanes; on long
 * ones score_halves does the same with two halves in a ring): s[4j + e] is then row
 * 16 warp + g + 8 (e / 2), token 8j + 2t + e % 2. */
template <int NH, int R, bool ROWS_M = false>
__device__ __forceinline__ void score_tile(float (&s)[NH / 2], uint32_t st, uint32_t q_addr)
{
    constexpr int STEPS = MB_DK / 32;
#pragma unroll
    for (int i = 0; i < NH / 2; i++) s[i] = 0.0f;
    float acc[R][NH / 2];
    const uint64_t kd = w9_desc_sw64(st, S9_SLICE), qd = w9_desc(q_addr, S9_KSBO);
#pragma unroll
    for (int k = 0; k < STEPS + R - 1; k++) {
        if (k < STEPS) {
            w9_fence();
            const uint64_t ks = w9_desc_add(kd, w9_sw64_off(0, 32 * k, S9_TILE)), qs = w9_desc_add(qd, w9_off(0, 32 * k, S9_KSBO));
            w9_fp8<NH>::mma(acc[k % R], ROWS_M ? qs : ks, ROWS_M ? ks : qs, 0);
            w9_commit();
        }
        if (k >= R - 1) {
            const int done = k - (R - 1), younger = (k < STEPS ? k : STEPS - 1) - done;
            w9_wait_dyn<R - 1>(younger);
            w9_fence_regs<NH / 2>(acc[done % R]);
#pragma unroll
            for (int i = 0; i < NH / 2; i++) s[i] += acc[done % R][i];
        }
    }
}

/* The KV scale (the output's factor, 1 under the planted wrong-scale bug) and the scores' one
 * multiplier (Q's and KV's scales, sm_scale, log2 e: softmax in base 2), loaded once a CTA at its
 * start, where the loads' latency overlaps the work list's. (v40 loaded Q's scale at every unit's
 * start, after Q's cast and barrier: ~4 % of a b32-q4-1k unit's samples waited on it.) */
struct unit_scales {
    float kv, mult;
};
__device__ __forceinline__ unit_scales unit_scales_of(const mb_decode_args_t &a)
{
    const float kv = a.fault == MB_FAULT_WRONG_SCALE ? 1.0f : a.scales_known ? a.kv_scale_value : *a.kv_scale;
    const float q = a.scales_known ? a.q_scale_value : *a.q_scale;
    return { kv, q * kv * a.sm_scale * 1.4426950408889634f };
}

/* A walker's state at a unit's start, for the thread's rows r0 + 8j + 2t + e of the unit (the m64nN
 * accumulator's rows, sm90_wgmma.h): each row's token end (row_token_end), running max -inf and sum 0,
 * O (MB 64-dim blocks) zero. */
template <int RB, int MB, int W>
__device__ __forceinline__ void unit_rows_begin(int (&end)[RB][2], float (&m)[RB][2], float (&l)[RB][2], float (&o)[MB][W],
                                                const mb_decode_args_t &a, const mb_work_t &u, int r0, int rows, int kv_end)
{
    const int t = threadIdx.x % 4;
#pragma unroll
    for (int j = 0; j < RB; j++)
#pragma unroll
        for (int e = 0; e < 2; e++) end[j][e] = row_token_end(a, u, r0 + 8 * j + 2 * t + e, rows, kv_end);
#pragma unroll
    for (int j = 0; j < RB; j++) m[j][0] = m[j][1] = -INFINITY, l[j][0] = l[j][1] = 0.0f;
#pragma unroll
    for (int mb = 0; mb < MB; mb++)
#pragma unroll
        for (int i = 0; i < W; i++) o[mb][i] = 0.0f;
}

/* Scores past each row's token end (end[j][e], row_token_end) to -inf, the rest times mult. `tok` is
 * the warp's first token, t0 + 16 warp + g. */
template <int RB>
__device__ __forceinline__ void mask_scores(float (&s)[4 * RB], const int (&end)[RB][2], int tok, float mult)
{
#pragma unroll
    for (int j = 0; j < RB; j++)
#pragma unroll
        for (int c = 0; c < 2; c++) {
            s[4 * j + c] = tok < end[j][c] ? s[4 * j + c] * mult : -INFINITY;
            s[4 * j + 2 + c] = tok + 8 < end[j][c] ? s[4 * j + 2 + c] * mult : -INFINITY;
        }
}

/* Each row's maximum over the warp's 16 tokens to red (the warp's slot of the warpgroup's row maxima). */
template <int RB>
__device__ __forceinline__ void warp_row_max(const float (&s)[4 * RB], float *red)
{
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int j = 0; j < RB; j++)
#pragma unroll
        for (int c = 0; c < 2; c++) {
            float v = fmaxf(s[4 * j + c], s[4 * j + 2 + c]);
            v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 4));
            v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 8));
            v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 16));
            if (g == 0) red[8 * j + 2 * t + c] = v;
        }
}

/* The online softmax of a tile whose row maxima the warpgroup's 4 warps left in red (warp_row_max, then a
 * warpgroup barrier): P in f16 pairs as store_pt takes them, l and m updated, each of the thread's
 * rows' rescale factor in alpha. Returns whether a max of this thread's rows moved (move_ref). For
 * walkers whose O holds the same rows as its scores (each thread rescales its own O, rescale_o). */
template <int RB>
__device__ __forceinline__ bool softmax_tile(const float (&s)[4 * RB], const float (&red)[4][8 * RB], float (&m)[RB][2],
                                             float (&l)[RB][2], float (&alpha)[RB][2], uint32_t (&pk)[RB][2])
{
    const int t = threadIdx.x % 4;
    bool moved = false;
#pragma unroll
    for (int j = 0; j < RB; j++) {
        float p[2][2];             /* [c][h]: row 8j + 2t + c, token 16 warp + g + 8h */
#pragma unroll
        for (int c = 0; c < 2; c++) {
            const int r = 8 * j + 2 * t + c;
            float mn = fmaxf(fmaxf(red[0][r], red[1][r]), fmaxf(red[2][r], red[3][r]));
            float ms;
            moved |= move_ref(m[j][c], mn, ms, alpha[j][c]);
            p[c][0] = exp2_ftz(s[4 * j + c] - ms), p[c][1] = exp2_ftz(s[4 * j + 2 + c] - ms);
            l[j][c] = l[j][c] * alpha[j][c] + p[c][0] + p[c][1];   /* this thread's two tokens; summed at the end */
        }
        pk[j][0] = f16x2_of(p[0][0], p[1][0]);
        pk[j][1] = f16x2_of(p[0][1], p[1][1]);
    }
    return moved;
}

/* O (8 blocks of 64 value dims x the warpgroup's rows, o[mb][4j + e]: row 8j + 2t + e % 2) times each
 * row's alpha, if any row moved. A warp's lanes hold all the warpgroup's rows and its warps read the
 * same maxima, so a warp's vote is the warpgroup's and the branch is uniform. */
template <int RB>
__device__ __forceinline__ void rescale_o(float (&o)[8][4 * RB], const float (&alpha)[RB][2], bool moved)
{
    if (__any_sync(0xffffffffu, moved))
#pragma unroll
        for (int j = 0; j < RB; j++)
#pragma unroll
            for (int mb = 0; mb < 8; mb++) {
                o[mb][4 * j] *= alpha[j][0]; o[mb][4 * j + 1] *= alpha[j][1];
                o[mb][4 * j + 2] *= alpha[j][0]; o[mb][4 * j + 3] *= alpha[j][1];
            }
}

/* Named barrier `id` of NT threads that also tells each of them whether any passed `p`. */
template <int NT>
__device__ __forceinline__ bool sync_or(int id, bool p)
{
    uint32_t r;
    asm volatile("{\n .reg .pred p, q;\n setp.ne.u32 p, %1, 0;\n bar.red.or.pred q, %2, %3, p;\n selp.u32 %0, 1, 0, q;\n}\n"
                 : "=r"(r) : "r"((uint32_t)p), "r"(id), "n"(NT) : "memory");
    return r != 0;
}
/* The same for the warpgroup's 128 threads. */
__device__ __forceinline__ bool wg_sync_or(int wg, bool p) { return sync_or<128>(1 + wg, p); }

/* A tile's masked scores (mask_scores) to P^T at p_addr, m, l and O updated, for the walkers whose O
 * holds the same rows as their scores. A row's maximum is spread over the 4 warps (each holds 16 of the
 * tile's tokens), so the exact online softmax needs an exchange of maxima and a barrier before P, then
 * another once P^T is stored. But the lazy reference (move_ref) moves only where a tile's scores pass
 * it by more than S9_REF_SLACK, which after a unit's first tile is rare; so P is computed against the
 * current references and stored, and the barrier that completes P^T also tells every thread whether
 * any row of the warpgroup had a score past its reference + S9_REF_SLACK. If none did, no max could
 * have moved, and P and m are exactly what the exchange would have given (l takes the same terms,
 * summed in another order): one barrier a tile and no exchange. If one did (and on the unit's first
 * tile, `first`, where every reference is -inf), the exchange and the exact softmax run and P^T is
 * stored again.
 * The first store comes before any barrier of the tile, and each warp's share of a P V wgmma reads all
 * of P^T and completes on its own: so no warp of the warpgroup may still be reading p_addr from an
 * earlier tile. The 16-row walker meets at a barrier at each tile's top, after every warp's wait for
 * its P V; the rows-split walker, which does not, alternates two P^T buffers by tile. */
template <int RB, class Rescale>
__device__ __forceinline__ void softmax_to_pt_with(const float (&s)[4 * RB], float (&m)[RB][2], float (&l)[RB][2],
                                                   float (&red)[4][8 * RB], uint32_t p_addr, int wg, bool first,
                                                   Rescale &&rescale)
{
    const int warp = threadIdx.x % 128 / 32;
    uint32_t pk[RB][2];
    if (!first) {
        bool past = false;
        float psum[RB][2];
#pragma unroll
        for (int j = 0; j < RB; j++) {
            float p[2][2];
#pragma unroll
            for (int c = 0; c < 2; c++) {
                const float ms = m[j][c] == -INFINITY ? 0.0f : m[j][c], lim = m[j][c] + S9_REF_SLACK;
                past |= s[4 * j + c] > lim || s[4 * j + 2 + c] > lim;
                p[c][0] = exp2_ftz(s[4 * j + c] - ms), p[c][1] = exp2_ftz(s[4 * j + 2 + c] - ms);
                psum[j][c] = p[c][0] + p[c][1];
            }
            pk[j][0] = f16x2_of(p[0][0], p[1][0]);
            pk[j][1] = f16x2_of(p[0][1], p[1][1]);
        }
        store_pt<RB>(p_addr, 0, 16 * warp, pk);
        w9_fence_proxy();
        const bool any = wg_sync_or(wg, past);
        if (!any) {
#pragma unroll
            for (int j = 0; j < RB; j++) l[j][0] += psum[j][0], l[j][1] += psum[j][1];
            return;
        }
    }
    warp_row_max<RB>(s, red[warp]);
    wg_sync(wg);
    float alpha[RB][2];
    const bool moved = softmax_tile<RB>(s, red, m, l, alpha, pk);
    store_pt<RB>(p_addr, 0, 16 * warp, pk);
    w9_fence_proxy();
    wg_sync(wg);                   /* P^T complete; the maxima in red are read */
    rescale(alpha, moved);
}
/* With the rows' rescale applied to O here (the walkers whose O holds the warpgroup's own rows);
 * softmax_to_pt_with's `rescale(alpha, moved)` runs where a reference moved, for walkers whose O
 * holds other rows too (the 64-row walker, sm90_unit_rs.h). */
template <int RB>
__device__ __forceinline__ void softmax_to_pt(const float (&s)[4 * RB], float (&m)[RB][2], float (&l)[RB][2],
                                              float (&o)[8][4 * RB], float (&red)[4][8 * RB], uint32_t p_addr, int wg,
                                              bool first)
{
    softmax_to_pt_with<RB>(s, m, l, red, p_addr, wg, first,
                           [&](const float (&alpha)[RB][2], bool moved) { rescale_o<RB>(o, alpha, moved); });
}

/* pv_load's addresses (below): a load takes the lane's row of a 16-token step (tokens 16 s + lane)
 * and the warp's 16 dims of a 64-dim block, so in w9_sw64_off the chunk's swizzle, warp ^ ((lane >> 1)
 * & 3), is the same for every step and block, and each load is at the thread's offset plus a
 * constant. Written through w9_sw64_off, ptxas recomputed the swizzle at every load: ~100 integer
 * instructions a warp a tile in the 64-row walker's multipliers, a third of what they issue beside
 * the scorer (v81's profile, results/NOTES.md, twenty-first session). dim0 is a multiple of 64. */
__host__ __device__ constexpr uint32_t pv_thread_off(int lane, int warp, int dim0)
{
    return (uint32_t)((dim0 >> 6) * S9_SLICE + lane * 64 + ((warp ^ ((lane >> 1) & 3)) << 4));
}
/* 64-dim block blk from dim0, tokens from tok0 (a multiple of 16). */
__host__ __device__ constexpr uint32_t pv_step_off(int blk, int tok0) { return (uint32_t)(blk * S9_SLICE + tok0 * 64); }
/* The sum is w9_sw64_off's address for every lane whose address ldmatrix.x2 reads (0-15), warp, dim0
 * and step: checked here when the kernels compile, so that a change to the layout cannot leave the
 * loads behind. */
constexpr bool pv_offsets_agree()
{
    for (int dim0 = 0; dim0 < MB_DV; dim0 += 256)
        for (int warp = 0; warp < 4; warp++)
            for (int lane = 0; lane < 16; lane++)
                for (int blk = 0; 64 * blk + dim0 < MB_DV; blk++)
                    for (int tok0 = 0; tok0 < S9_TILE; tok0 += 16)
                        if (pv_thread_off(lane, warp, dim0) + pv_step_off(blk, tok0) !=
                            w9_sw64_off(tok0 + lane, dim0 + 64 * blk + 16 * warp, S9_TILE))
                            return false;
    return true;
}
static_assert(pv_offsets_agree(), "pv_load's offsets are w9_sw64_off's");
/* The P V of a tile with V^T as the register operand (the 16-row and rows-split walkers): O^T += V^T P^T
 * over its 64 tokens, P^T at descriptor pd, o[mb][...] the 64-dim block mb (w9_vt_fragment's order).
 * A step takes F of the 8 dim blocks over 16 tokens: F = 8 where the registers allow, 4 at 64 rows
 * (all eight blocks at once spilled there). Its V^T codes are loaded (pv_load, into raw) one step
 * ahead of their widening, step 0's by the walker before its softmax: in v48 each step widened the
 * words of loads it had just issued, and waited for them (v49). The next step's loads go out as soon
 * as this step's words are widened, ahead of this step's wgmmas (v61, −2.0 to −2.6 % on the long
 * 64-row shapes: in v53's b128-q4 profile the widening PRMTs, waiting on those loads, held 14 % of
 * the stall samples with the loads issued after the wgmmas). The fragments are in two sets: a set is
 * rebuilt only after the wgmmas of two steps back, which read it, are done. */
template <int F, int MB = 8>
__device__ __forceinline__ void pv_load(uint32_t (&raw)[F][2], uint32_t st, int k, int warp, int dim0 = 0)
{
    constexpr int H = MB / F;      /* steps a 16-token step */
    const uint32_t vt = st + pv_thread_off(threadIdx.x % 32, warp, dim0);
#pragma unroll
    for (int i = 0; i < F; i++) w9_vt_load_at(raw[i], vt + pv_step_off(F * (k % H) + i, 16 * (k / H)));
}
/* MB 64-dim blocks from value dim dim0 (all 8 from 0 but in the 64-row walker, whose warpgroups take 4 each). */
template <int NH, int F, int MB = 8>
__device__ __forceinline__ void pv_tile(float (&o)[MB][NH / 2], uint32_t (&raw)[F][2], uint32_t st, uint64_t pd, int warp,
                                        int dim0 = 0)
{
    constexpr int H = MB / F, STEPS = H * S9_TILE / 16;
    uint32_t f[2][F][4];
#pragma unroll
    for (int k = 0; k < STEPS; k++) {
        if (k >= 2) w9_wait<1>();
#pragma unroll
        for (int i = 0; i < F; i++) w9_vt_widen(f[k % 2][i], raw[i]);
        if (k + 1 < STEPS) pv_load<F, MB>(raw, st, k + 1, warp, dim0);   /* raw is free once widened */
        w9_fence();
#pragma unroll
        for (int i = 0; i < F; i++)
            w9_f16_ra<NH>::mma(o[F * (k % H) + i], f[k % 2][i], w9_desc_add(pd, w9_off(0, 32 * (k / H), S9_HSBO)));
        w9_commit();
    }
}

/* Each of the thread's rows' l summed over the 8 lanes of its column; the column's lane g = 0 gives
 * row 8j + 2t + c's sum to put(row, sum). */
template <int RB, class Put>
__device__ __forceinline__ void column_sums(const float (&l)[RB][2], Put &&put)
{
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int j = 0; j < RB; j++)
#pragma unroll
        for (int c = 0; c < 2; c++) {
            float v = l[j][c];
            v += __shfl_xor_sync(0xffffffffu, v, 4);
            v += __shfl_xor_sync(0xffffffffu, v, 8);
            v += __shfl_xor_sync(0xffffffffu, v, 16);
            if (g == 0) put(8 * j + 2 * t + c, v);
        }
}
/* To red (the warp's slot); the walker adds the 4 warps' after a warpgroup barrier. */
template <int RB>
__device__ __forceinline__ void row_sums(const float (&l)[RB][2], float *red)
{
    column_sums<RB>(l, [&](int r, float v) { red[r] = v; });
}

/* A unit's normalised rows, staged in ob (row stride S9_OS floats), to the output (bf16) or to its
 * partial slot (fp32, with each row's log2-sum-exp2 from row_m / row_l). */
__device__ __forceinline__ void store_unit(const float *ob, const float *row_m, const float *row_l, const mb_decode_args_t &a,
                           const mb_work_t &u, int rows, int64_t qrow0)
{
    if (u.partial < 0) {
        for (int i = threadIdx.x; i < rows * (MB_DV / 8); i += S9_THREADS) {
            int r = i / (MB_DV / 8), d = 8 * (i % (MB_DV / 8));
            const float *x = &ob[r * S9_OS + d];
            uint32_t w[4];
#pragma unroll
            for (int e = 0; e < 4; e++) w[e] = bf16x2_of(x[2 * e], x[2 * e + 1]);
            *(uint4 *)&a.out[(qrow0 + r) * MB_DV + d] = make_uint4(w[0], w[1], w[2], w[3]);
        }
    } else {
        int64_t slot = (int64_t)u.partial * a.rows_per_unit;
        for (int i = threadIdx.x; i < rows * (MB_DV / 4); i += S9_THREADS) {
            int r = i / (MB_DV / 4), d = 4 * (i % (MB_DV / 4));
            *(float4 *)&((float *)a.partial_o)[(slot + r) * MB_DV + d] = *(const float4 *)&ob[r * S9_OS + d];   /* fp32: s9_partials_f16 */
        }
        for (int r = threadIdx.x; r < rows; r += S9_THREADS)
            a.partial_lse[slot + r] = row_l[r] > 0.0f ? row_m[r] + log2_ftz(row_l[r]) : -INFINITY;
    }
}

#endif
