/* The 64-row walker's two scorers (v119; the layout, Q's staging and the multipliers are in
 * sm90_unit_pc.h): scorer s (warpgroup 2 + s) takes tokens [32 s, 32 s + 32) of every tile for all 64
 * rows (m64n32k32, the rows as M). With one scorer (v79-v117) its chain set the tile's period (score
 * steps 0.82 us, softmax 0.35, hand-over 0.23, waits 0.22 of a 1.62 us tile in the thirty-first
 * session's trace of b128-q4) while the tensor cores were busy about half of it; here each scorer sums
 * half the steps' outputs (16 adds a step, not 32) and makes half of P, and the two chains run side
 * by side. The price: m64n32k32 with both operands in shared memory runs at two thirds of the tensor
 * core's rate, a CTA issues ~13 % more instructions a tile, and a row's maximum is split between the
 * scorers, so they meet at a barrier every tile to vote whether any row's reference must move
 * (move_ref: after a unit's first tile, rarely) and exchange their halves' maxima only then.
 * Measured beside one scorer (three calls, eight placements, two rounds): the 64-row shapes -1.6 to
 * -4.4 %, geomean -1.3 to -1.5 % (graph), -0.7 to -1.4 % (eager); the trace's period barely moved
 * (1.62 -> 1.60 us a tile on its GPU: score steps 0.71, softmax with the vote 0.48). The vote costs
 * ~1.5 % (a build without it, wrong results, read -3.5 % on b128-q4 against -2.0); exchanging the
 * maxima at the multipliers' release barrier instead (v119c) put that barrier's wait into the softmax
 * (-1.0 %), a ring of three score steps at 88 / 168 registers was slower (v119b, -0.7 %), and two
 * warpgroups taking turns to score whole tiles (v118, the seesaw) +7 % (each then drains its P V
 * before it scores: results/NOTES.md, thirty-first session).
 * Since v123, units of S9_PC_ALT_TILES tiles or more are scored otherwise (ps_score_alt): scorer s
 * takes the tiles of parity s, each whole (in two halves of 32 tokens a step, a ring of two
 * half-steps), and a tile's row references come from the other scorer's tile before it, so there is
 * no vote and each scorer has two tiles' time for its chain. In a short unit a tile's P then waits
 * for one scorer's whole chain (b32-q4-kv1024's 4-tile units +7.6 %), so those keep the split above
 * (ps_score_split). Measured (v123 beside v119, eight placements, three rounds): b32-q4-kv8192 -1.9 %,
 * b128-q4 -1.2 % graph (-1.9 / -1.7 % eager), the rest the same; the trace of the alternate walker
 * alone (v122c) has the period 1.60 -> 1.47 us a tile, its scorer's chain 2.8 us for two tiles (score
 * steps 1.58, softmax 0.93: the other scorer's wgmmas are in flight through it). Alternating with a
 * ring of one whole step (v122, the registers allow no more) was +1.0 %: each step a full round trip.
 * Both scorers leave the mask out where their tokens end before every row of the warp (ps_row_maxima,
 * v123d/e). Registers: 512 threads have 128 each at launch; the scorers give 48 of theirs to the multipliers
 * (80 / 176; an increase beyond that pool waits forever: v79f's budgets hung). */
#ifndef MB_SM90_UNIT_PS_H
#define MB_SM90_UNIT_PS_H

#include "sm90_unit_pc.h"

#define S9_STR2(x) #x
#define S9_STR(x) S9_STR2(x)
#define S9_PS_RING 2            /* score steps in flight and summed: 80 registers hold no more */
#define S9_PS_LAUNCH_REGS (65536 / S9_PC_THREADS / 8 * 8)   /* the register file over the threads, in 8s */
#define S9_PS_SCORER_REGS 80
#define S9_PS_MUL_REGS 176
static_assert(2 * S9_PS_MUL_REGS + 2 * S9_PS_SCORER_REGS <= 4 * S9_PS_LAUNCH_REGS, "the launch's register pool");

/* What both scorer paths take at a unit's start: the thread's place (from its index as ptxas cannot
 * prove it the same from one unit to the next, as pc_multiply_unit's: computed at each unit, not
 * hoisted above the unit loop, where it stayed live across both paths and spilled), the unit's span
 * and where its stages and Q are. */
struct ps_unit {
    int sh, wt, warp, lane, g, t, rows, kv_end, ntiles;
    uint32_t seq0, kv0, q_addr;
};
template <int N>
__device__ __forceinline__ ps_unit ps_unit_begin(s9_smem_pc<N> &sm, const mb_decode_args_t &a, const mb_work_t &u, uint32_t &seq)
{
    const int rows = u.row_end - u.row_begin, tid = min((int)threadIdx.x, rows + S9_PC_THREADS);
    const int sh = s9_warpgroup() - 2, wt = tid % 128, warp = wt / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
    const unit_span span = unit_span_of(a, u);
    const ps_unit p = { sh, wt, warp, lane, g, t, rows, span.kv_end, span.ntiles, seq, w9_smem_addr(sm.kv[0]), w9_smem_addr(sm.q) };
    seq += span.ntiles;
    return p;
}

/* N values (a power of two) reduced by pairs, a tree log2 N deep: written as `m = op(m, x)` in a
 * loop, a row's maximum and sum stay chains N long in the machine code (ptxas does not reassociate
 * them). Measured alone (v135, forty-third session) the trees were no faster than the chains: the
 * alternate scorer's maxima phase 781 -> 723 cycles in the trace, every shape the same timed. They stay
 * as the measured base of v136 (ps_quad_max). The widths come from the template: from a loop halving
 * them, ptxas left the loop rolled and the array in local memory. */
template <int W, int N, class Op>
__device__ __forceinline__ float ps_tree_from(float (&v)[N], Op op)
{
#pragma unroll
    for (int i = 0; i < W; i++) v[i] = op(v[i], v[i + W]);
    if constexpr (W > 1) return ps_tree_from<W / 2>(v, op);
    else return v[0];
}
template <int N, class Op>
__device__ __forceinline__ float ps_tree(float (&v)[N], Op op)
{
    static_assert(N >= 2 && (N & (N - 1)) == 0, "a power of two");
    return ps_tree_from<N / 2>(v, op);
}

/* Row h's scores (s[4j + 2h + e], token t0 + 8j + 2t + e, j < J) past its token end to -inf (MASK:
 * false where the caller knows every token is before it), and the thread's maximum of them (the row's
 * over its quad: ps_quad_max). */
template <int J, bool MASK = true>
__device__ __forceinline__ float ps_masked_max(float (&s)[4 * J], int h, int t0, int t, int end)
{
    float v[2 * J];
#pragma unroll
    for (int j = 0; j < J; j++)
#pragma unroll
        for (int e = 0; e < 2; e++) {
            const int i = 4 * j + 2 * h + e;
            if (MASK) s[i] = t0 + 8 * j + 2 * t + e < end ? s[i] : -INFINITY;
            v[2 * j + e] = s[i];
        }
    return ps_tree(v, [](float a, float b) { return fmaxf(a, b); });
}

/* The row maxima over the quad of lanes that holds each of the thread's two rows, taken only where
 * some row's maximum may move its reference (a lane's own scores past it by S9_REF_SLACK, voted):
 * where none passes, move_ref's outcome does not depend on the maximum, and after a unit's first
 * tiles none does. Measured (v136, forty-third session, eight placements, four rounds): b32-q4-8k
 * -0.7 %, b128-q4 -0.5 %, the rest the same; the alternate scorer's maxima phase 723 -> 648 cycles
 * in the trace, so the shuffles were a small part of it. */
__device__ __forceinline__ void ps_quad_max(float (&mx)[2])
{
#pragma unroll
    for (int h = 0; h < 2; h++) {
        mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
        mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
    }
}

/* Both rows' masked maxima (ps_masked_max, the thread's own) of the scorer's J * 8 tokens from t0
 * on. Where they end before every row of the warp does (all a unit's tiles but its last one or two)
 * the mask is left out: 2 J fewer compares and selects a row in the softmax, the alternate scorer's
 * chain's largest piece (v123d/e, four calls beside v123: b32-q4-kv8192 -1.1 to -2.0 %, b128-q4 -0.6
 * to -2.1 %; the split scorer's shapes within their spread). The warp decides, so that its lanes stay
 * together for the quads' shuffles that may follow (ps_quad_max). (v79j's skip in the one-scorer
 * walker was +4 %, its branch around the whole softmax.) */
template <int J>
__device__ __forceinline__ void ps_row_maxima(float (&mx)[2], float (&s)[4 * J], int t0, int t, const int (&end)[2])
{
    if (__all_sync(0xffffffffu, t0 + 8 * J <= min(end[0], end[1]))) {
#pragma unroll
        for (int h = 0; h < 2; h++) mx[h] = ps_masked_max<J, false>(s, h, t0, t, end[h]);
    } else {
#pragma unroll
        for (int h = 0; h < 2; h++) mx[h] = ps_masked_max<J>(s, h, t0, t, end[h]);
    }
}

/* Row h's scores to P = 2^(s mult - ms), and their sum. */
template <int J>
__device__ __forceinline__ float ps_exp_sum(float (&s)[4 * J], int h, float mult, float ms)
{
    float v[2 * J];
#pragma unroll
    for (int j = 0; j < J; j++)
#pragma unroll
        for (int e = 0; e < 2; e++) {
            const int i = 4 * j + 2 * h + e;
            s[i] = exp2_ftz(fmaf(s[i], mult, -ms));
            v[2 * j + e] = s[i];
        }
    return ps_tree(v, [](float a, float b) { return a + b; });
}

/* The scorer's P (f16) into P^T's layout at p_addr: its J * 8 tokens from tok0 on, all its rows. */
template <int J>
__device__ __forceinline__ void ps_store_p(uint32_t p_addr, const float (&s)[4 * J], int warp, int lane, int tok0)
{
    const int mi = lane / 8, r = lane % 8;
#pragma unroll
    for (int j = 0; j < J; j += 2) {
        const uint32_t ad = p_addr + w9_off(16 * warp + 8 * (mi % 2) + r, 2 * (tok0 + 8 * (j + mi / 2)), S9_HSBO);
        asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n"
                     ::"r"(ad), "r"(f16x2_of(s[4 * j], s[4 * j + 1])), "r"(f16x2_of(s[4 * j + 2], s[4 * j + 3])),
                       "r"(f16x2_of(s[4 * j + 4], s[4 * j + 5])), "r"(f16x2_of(s[4 * j + 6], s[4 * j + 7])) : "memory");
    }
}

/* Scorer sh's part of a unit of few tiles: each tile's scores of its 32 tokens, their softmax and P,
 * then its rows' sums (scorer 0 adds both and writes the log-sum-exps). */
template <int N>
__device__ __forceinline__ void ps_score_split(s9_smem_pc<N> &sm, const mb_decode_args_t &a, const mb_work_t u,
                                              const unit_scales sc, uint32_t &seq)
{
    static_assert(N == 64, "the scores' M is 64 rows");
    constexpr int S = S9_PC_STAGES;
    const auto [sh, wt, warp, lane, g, t, rows, kv_end, ntiles, seq0, kv0, q_addr] = ps_unit_begin(sm, a, u, seq);
    const uint32_t half = w9_sw64_off(32 * sh, 0, S9_TILE);

    int end[2];                    /* the token end of the thread's rows 16 warp + g + 8h */
    float m[2], l[2];
#pragma unroll
    for (int h = 0; h < 2; h++) end[h] = row_token_end(a, u, 16 * warp + g + 8 * h, rows, kv_end), m[h] = -INFINITY, l[h] = 0.0f;
    pc_sync(S9_PC_QREADY, S9_PC_THREADS);

    for (int it = 0; it < ntiles; it++) {
        const int par = it & 1, t0 = u.kv_begin + it * S9_TILE + 32 * sh;
        const uint32_t c = (seq0 + it) % S, st = kv0 + c * S9_TILE_BYTES;
        s9_diag_stall(it, 3 + sh);
        w9_mbar_wait(&sm.bar[c], ((seq0 + it) / S) & 1);
        if (wt == 0 && sh == 0) s9_stamp(seq0 + it, S9T_PC_READY);
        float s[16];               /* s[4j + 2h + e]: row 16 warp + g + 8h, token 32 sh + 8j + 2t + e */
        score_tile<32, S9_PS_RING, true>(s, st + half, q_addr);
        if (wt == 0 && sh == 0) s9_stamp(seq0 + it, S9T_PC_SCORED);
        if (it >= 1) pc_arrive(S9_PC_SCORED + (it & 3), S9_PC_THREADS);
        float hm[2], mxs[2];
        bool need = false;
        ps_row_maxima<4>(mxs, s, t0, t, end);
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const float mx = mxs[h];
            /* The scores' multiplier goes onto the maximum, not onto every score before it (v83):
             * it is positive (both scales are guarded, unit_scales_of), so the largest raw score,
             * scaled, is the largest score, rounding being monotone; -inf stays -inf. The scores
             * take it in the exponent's FFMA below. */
            hm[h] = mx * sc.mult;
            need |= hm[h] > m[h] + S9_REF_SLACK;
        }
        /* Where no lane's scores pass a row's reference by the slack, neither does the whole tile,
         * and move_ref keeps every reference whatever the maximum; otherwise both scorers take the
         * whole tile's maxima (their quads', then each other's halves), and so the same references. */
        if (sync_or<256>(S9_PC_VOTE, need)) {
            ps_quad_max(hm);
            if (t == 0) sm.xm[sh][16 * warp + g] = hm[0], sm.xm[sh][16 * warp + g + 8] = hm[1];
            pc_sync(S9_PC_XCHG, 256);
#pragma unroll
            for (int h = 0; h < 2; h++) hm[h] = fmaxf(hm[h], sm.xm[sh ^ 1][16 * warp + g + 8 * h]);
        }
        bool moved = false;
        float alpha[2];
#pragma unroll
        for (int h = 0; h < 2; h++) {
            float ms;
            moved |= move_ref(m[h], hm[h], ms, alpha[h]);
            l[h] = l[h] * alpha[h] + ps_exp_sum<4>(s, h, sc.mult, ms);
        }
        const bool wmoved = __any_sync(0xffffffffu, moved);
        if (wt == 0 && sh == 0) s9_stamp(seq0 + it, S9T_PC_SOFTMAX);
        if (it >= 2) pc_sync(S9_PC_EMPTY + par, S9_PC_THREADS);
        if (wt == 0 && sh == 0) s9_stamp(seq0 + it, S9T_PC_EMPTY);
        ps_store_p<4>(w9_smem_addr(sm.p[par]), s, warp, lane, 32 * sh);
        if (sh == 0) {             /* both scorers hold the same rescale */
            if (wmoved && t == 0) sm.alpha[it & 3][16 * warp + g] = alpha[0], sm.alpha[it & 3][16 * warp + g + 8] = alpha[1];
            if (lane == 0) sm.moved[it & 3][warp] = wmoved;
        }
        w9_fence_proxy();          /* P^T's generic writes before the multipliers' wgmmas read them */
        pc_arrive(S9_PC_FULL + par, S9_PC_THREADS);
        if (wt == 0 && sh == 0) s9_stamp(seq0 + it, S9T_PC_FULL);
    }

#pragma unroll
    for (int h = 0; h < 2; h++) {
        l[h] += __shfl_xor_sync(0xffffffffu, l[h], 1);
        l[h] += __shfl_xor_sync(0xffffffffu, l[h], 2);
        if (sh == 1 && t == 0) sm.row_l1[16 * warp + g + 8 * h] = l[h];
    }
    pc_sync(S9_PC_XCHG, 256);
    if (sh == 0 && t == 0)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int rw = 16 * warp + g + 8 * h;
            const float lr = l[h] + sm.row_l1[rw];
            sm.row_l[rw] = lr;
            if (u.partial >= 0 && rw < rows)
                a.partial_lse[(int64_t)u.partial * a.rows_per_unit + rw] = lr > 0.0f ? m[h] + log2_ftz(lr) : -INFINITY;
        }
    pc_arrive(S9_PC_ROWL, S9_PC_THREADS);
}

/* %tid.x read where it is used: volatile, so that ptxas neither hoists it nor keeps what derives
 * from it live through the tile loop. At the scorers' 80 registers, ps_score_alt's row offsets, held
 * from the unit's start, spilled in its loop. */
__device__ __forceinline__ int ps_tid()
{
    int v;
    asm volatile("mov.u32 %0, %%tid.x;\n" : "=r"(v));
    return v;
}
/* The thread's first row (16 warp + g), from ps_tid. */
__device__ __forceinline__ int ps_row0(int tv) { return tv % 128 / 32 * 16 + tv % 32 / 4; }

/* A tile's scores for all 64 rows in two halves of 32 tokens a step (m64n32k32, the rows as M), each
 * half-step its own accumulator in a ring of two: one wgmma in flight while the other is summed, in
 * the registers a ring of one whole step would take (s[16 hh + i] is half hh's acc[i]).
 * Q's descriptor moves by a 32-bit add to its low word (w9_desc_add_lo): as a 64-bit add, ptxas
 * gave each step a carry pair and a constant's move in this loop (not in the model's copy of it,
 * tests/gpu/sm90_walker_model.hip), 18 more instructions a tile on the scorer's chain (v145,
 * forty-seventh session). The same form for K's descriptors, or in score_tile, where the 64-bit adds
 * are single instructions, made those loops longer. */
__device__ __forceinline__ void score_halves(float (&s)[32], uint32_t st, uint32_t q_addr)
{
    constexpr int HS = 2 * (MB_DK / 32);
#pragma unroll
    for (int i = 0; i < 32; i++) s[i] = 0.0f;
    float acc[2][16];
    const uint64_t qd = w9_desc(q_addr, S9_KSBO);
    const uint64_t kd[2] = { w9_desc_sw64(st, S9_SLICE), w9_desc_sw64(st + w9_sw64_off(32, 0, S9_TILE), S9_SLICE) };
#pragma unroll
    for (int k = 0; k < HS + 1; k++) {
        if (k < HS) {
            w9_fence();
            const uint64_t ks = w9_desc_add(kd[k % 2], w9_sw64_off(0, 32 * (k / 2), S9_TILE));
            const uint64_t qs = w9_desc_add_lo(qd, w9_off(0, 32 * (k / 2), S9_KSBO));
            w9_fp8<32>::mma(acc[k % 2], qs, ks, 0);
            w9_commit();
        }
        if (k >= 1) {
            const int done = k - 1;
            w9_wait_dyn<1>(k < HS ? 1 : 0);
            w9_fence_regs<16>(acc[done % 2]);
#pragma unroll
            for (int i = 0; i < 16; i++) s[16 * (done % 2) + i] += acc[done % 2][i];
        }
    }
}

/* Scorer sh's part of a unit of many tiles (S9_PC_ALT_TILES): the tiles of parity sh, each whole
 * (score_halves), their softmax and P. A tile's reference comes from the other scorer's tile before it
 * (sm.ref, REF); each scorer's row sums are against the reference of its own last tile, and scorer 0
 * meets both at the unit's end and writes the log-sum-exps. */
template <int N>
__device__ __forceinline__ void ps_score_alt(s9_smem_pc<N> &sm, const mb_decode_args_t &a, const mb_work_t u,
                                              const unit_scales sc, uint32_t &seq)
{
    static_assert(N == 64, "the scores' M is 64 rows");
    constexpr int S = S9_PC_STAGES;
    const auto [sh, wt, warp, lane, g, t, rows, kv_end, ntiles, seq0, kv0, q_addr] = ps_unit_begin(sm, a, u, seq);

    int end[2];                    /* the token end of the thread's rows 16 warp + g + 8h */
    float l[2];                    /* against the reference of this scorer's last tile, sm.ref[sh] */
#pragma unroll
    for (int h = 0; h < 2; h++) end[h] = row_token_end(a, u, 16 * warp + g + 8 * h, rows, kv_end), l[h] = 0.0f;
    pc_sync(S9_PC_QREADY, S9_PC_THREADS);

    const int par = sh;            /* every tile of this scorer */
    for (int it = sh; it < ntiles; it += 2) {
        const int t0 = u.kv_begin + it * S9_TILE;
        const uint32_t c = (seq0 + it) % S, st = kv0 + c * S9_TILE_BYTES;
        s9_diag_stall(it, 3 + sh);
        w9_mbar_wait(&sm.bar[c], ((seq0 + it) / S) & 1);
        if (wt == 0) s9_stamp(seq0 + it, S9T_PC_READY);
        float s[32];               /* s[4j + 2h + e]: row 16 warp + g + 8h, token 8j + 2t + e */
        score_halves(s, st, q_addr);
        if (wt == 0) s9_stamp(seq0 + it, S9T_PC_SCORED);
        if (it >= 1) pc_arrive(S9_PC_SCORED + (it & 3), S9_PC_HAND_ALT);
        float ref[2] = { -INFINITY, -INFINITY }, ms[2], alpha[2];   /* ms: move_ref's, recomputed below */
        if (it >= 1) {
            pc_sync(S9_PC_REF + (par ^ 1), 256);
#pragma unroll
            for (int h = 0; h < 2; h++) ref[h] = sm.ref[par ^ 1][16 * warp + g + 8 * h];
        }
        float mx[2];
        ps_row_maxima<8>(mx, s, t0, t, end);
        bool past = false;
#pragma unroll
        for (int h = 0; h < 2; h++) past |= mx[h] * sc.mult > ref[h] + S9_REF_SLACK;
        if (__any_sync(0xffffffffu, past)) ps_quad_max(mx);   /* see ps_quad_max */
        bool moved = false;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            /* The scores' multiplier goes onto the maximum (v83), as in ps_score_split. */
            moved |= move_ref(ref[h], mx[h] * sc.mult, ms[h], alpha[h]);
        }
        /* The next tile's scorer waits for these references, not for P. This scorer reads its own
         * back at its next tile (its row sums' reference: from shared memory, not registers) and at
         * the unit's end. The other scorer has read the slot's previous ones (its tile before this
         * one's) before it released this tile's reference wait. */
        float mown[2];
        {
            const int tv = ps_tid();
#pragma unroll
            for (int h = 0; h < 2; h++) mown[h] = it >= 2 ? sm.ref[par][ps_row0(tv) + 8 * h] : -INFINITY;
            __syncwarp();          /* the quad's reads of the slot before its first lane writes it */
            if (tv % 4 == 0) sm.ref[par][ps_row0(tv)] = ref[0], sm.ref[par][ps_row0(tv) + 8] = ref[1];
        }
        if (it + 1 < ntiles) pc_arrive(S9_PC_REF + par, 256);
        /* The rescale goes out now, four tiles deep, so that it holds no registers through the
         * exponentials: the multipliers read slot it & 3 for tile it, and this scorer writes it again
         * for tile it + 4 only after EMPTY of tile it + 2, which follows their reading it. */
        const bool wmoved = __any_sync(0xffffffffu, moved);
        if (wmoved) {
            const int tv = ps_tid();
            if (tv % 4 == 0) sm.alpha[it & 3][ps_row0(tv)] = alpha[0], sm.alpha[it & 3][ps_row0(tv) + 8] = alpha[1];
        }
        if (lane == 0) sm.moved[it & 3][warp] = wmoved;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            /* References only rise; mown == ref also covers a row with no token yet (-inf, -inf). */
            l[h] = mown[h] == ref[h] ? l[h] : l[h] * exp2_ftz(mown[h] - ref[h]);
        }
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const float msh = ref[h] == -INFINITY ? 0.0f : ref[h];   /* move_ref's ms */
            l[h] += ps_exp_sum<8>(s, h, sc.mult, msh);
        }
        if (wt == 0) s9_stamp(seq0 + it, S9T_PC_SOFTMAX);
        if (it >= 2) pc_sync(S9_PC_EMPTY + par, S9_PC_HAND_ALT);
        if (wt == 0) s9_stamp(seq0 + it, S9T_PC_EMPTY);
        ps_store_p<8>(w9_smem_addr(sm.p[par]), s, warp, lane, 0);
        w9_fence_proxy();          /* P^T's generic writes before the multipliers' wgmmas read them */
        pc_arrive(S9_PC_FULL + par, S9_PC_HAND_ALT);
        if (wt == 0) s9_stamp(seq0 + it, S9T_PC_FULL);
    }

    float m[2];                    /* the reference of this scorer's last tile (none: -inf, and l is 0) */
#pragma unroll
    for (int h = 0; h < 2; h++) {
        l[h] += __shfl_xor_sync(0xffffffffu, l[h], 1);
        l[h] += __shfl_xor_sync(0xffffffffu, l[h], 2);
        const int tv = ps_tid();
        m[h] = ntiles > sh ? sm.ref[par][ps_row0(tv) + 8 * h] : -INFINITY;
        if (sh == 1 && tv % 4 == 0) sm.row_l1[ps_row0(tv) + 8 * h] = l[h], sm.row_m1[ps_row0(tv) + 8 * h] = m[h];
    }
    pc_sync(S9_PC_XCHG, 256);
    const int tv = ps_tid();
    if (sh == 0 && tv % 4 == 0)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            /* The unit's reference is the larger (its last tile's); a sum is nonzero only against a
             * finite reference, which the larger then is too. */
            const int rw = ps_row0(tv) + 8 * h;
            const float l1 = sm.row_l1[rw], m1 = sm.row_m1[rw], mu = fmaxf(m[h], m1);
            const float lr = (l[h] > 0.0f ? l[h] * exp2_ftz(m[h] - mu) : 0.0f) + (l1 > 0.0f ? l1 * exp2_ftz(m1 - mu) : 0.0f);
            sm.row_l[rw] = lr;
            if (u.partial >= 0 && rw < rows)
                a.partial_lse[(int64_t)u.partial * a.rows_per_unit + rw] = lr > 0.0f ? mu + log2_ftz(lr) : -INFINITY;
        }
    pc_arrive(S9_PC_ROWL, S9_PC_THREADS);
}

template <int N, class KV>
__device__ __forceinline__ void ps_run(s9_smem_pc<N> &sm, const mb_decode_args_t &a, const KV map, const unit_scales sc, int w0, int w1,
                                      mb_work_t u)
{
    uint32_t seq = 0;
    if (s9_warpgroup() >= 2) {
        W9_ASM("setmaxnreg.dec.sync.aligned.u32 " S9_STR(S9_PS_SCORER_REGS) ";\n");
        for (int w = w0; w < w1; w++) {
            if (w > w0) u = a.work[w];
            if (unit_span_of(a, u).ntiles >= S9_PC_ALT_TILES) ps_score_alt<N>(sm, a, u, sc, seq);
            else ps_score_split<N>(sm, a, u, sc, seq);
        }
    } else {
        W9_ASM("setmaxnreg.inc.sync.aligned.u32 " S9_STR(S9_PS_MUL_REGS) ";\n");
        if (threadIdx.x == 0) s9_stamp(0, S9T_ENTRY_ROLE);
        s9_stamp_after(u.row_end, 0, S9T_ENTRY_PARAMS);
        for (int w = w0; w < w1; w++) {
            if (w > w0) u = a.work[w];
            pc_multiply_unit<N>(sm, a, map, u, sc, seq);
        }
    }
}

#endif
