#include <stdlib.h>
#include <string.h>
#include "numeric.h"
#include "plan.h"

static int ceil_div(int64_t a, int64_t b) { return (int)((a + b - 1) / b); }

int64_t mb_unit_cost(const mb_work_t *u) { return (int64_t)(u->kv_end - u->kv_begin) + MB_UNIT_OVERHEAD; }

/* "auto": the split count whose plan finishes first under the plan's own cost model. B batches of G row
 * groups split s ways make B*G*s units of about L/s tokens; spread over W workers, the busiest holds
 * ceil(B*G*s / W) of them. So the critical path is ceil(B*G*s / W) * (L/s + unit overhead), plus one
 * more overhead for the combine when s > 1; the smallest wins, ties going to fewer splits. Splits never
 * go below one kernel tile nor past AUTO_MAX_SPLITS. Sized from the mean length; each batch is clamped
 * to its own length. Counting whole waves matters: 416 units on 396 workers take two rounds, 384 take
 * one. (A first version also kept splits >= 128 tokens, to spare the partial writes; the H200 sweep of
 * mixed-mla showed (4, 1, 1024, 32) fastest at 32 splits of 32 tokens, 1.42x faster than at 8, and no
 * shape hurt by short splits: results/NOTES.md.) */
#define AUTO_MAX_SPLITS 64

/* A partial unit's fp32 rows, written and then read back by the combine, in KV tokens of the same bytes.
 * (sm90's rows-split walkers store f16 partials since v108c, half this; the model was measured and its
 * choices checked against the sweep with fp32's, so it stays until the uneven shapes are swept again.) */
static int64_t partial_tokens(int rows) { return (int64_t)rows * MB_DV * 4 * 2 / MB_DK; }

/* A plan's time in the kernel's cost model: its busiest CTA, but no less than its whole work shared by
 * the CTAs that saturate DRAM, where the kernel says it is bound by DRAM (plan.h, dram_ctas). */
static int64_t dram_bound(const mb_plan_params_t *p, int64_t busiest, int64_t total)
{
    int64_t share = p->dram_ctas > 0 ? (total + p->dram_ctas - 1) / p->dram_ctas : 0;
    return busiest > share ? busiest : share;
}

static int split_chunk(int len, int splits, int gran);

/* The end of row group grp of a batch's rows (the last group may be short). */
static int group_end(const mb_plan_params_t *p, int rows, int grp)
{
    int r1 = (grp + 1) * p->rows_per_unit;
    return r1 < rows ? r1 : rows;
}

int mb_plan_unit_rows(const mb_plan_params_t *p)
{
    return p->q_len * p->heads < p->rows_per_unit ? p->q_len * p->heads : p->rows_per_unit;
}

int mb_auto_splits(const mb_plan_params_t *p)
{
    if (p->batch < 1 || p->rows_per_unit < 1 || p->kv_granularity < 1 || p->max_ctas < 1 || !p->kv_lens) return 1;
    int64_t sum = 0;
    for (int b = 0; b < p->batch; b++) sum += p->kv_lens[b];
    int mean = (int)(sum / p->batch);
    int64_t base = (int64_t)p->batch * ceil_div((int64_t)p->q_len * p->heads, p->rows_per_unit);
    int best = 1;
    int64_t best_cost = INT64_MAX;
    for (int s = 1; s <= AUTO_MAX_SPLITS; s++) {
        if (s > 1 && mean / s < p->kv_granularity) break;
        int64_t waves = (base * s + p->max_ctas - 1) / p->max_ctas, cost;
        if (p->unit_overhead > 0) {   /* the kernel's own costs (plan.h): a partial's traffic, DRAM's share */
            int64_t unit = split_chunk(mean, s, p->kv_granularity) + p->unit_overhead +
                           (s > 1 ? partial_tokens(mb_plan_unit_rows(p)) : 0);
            cost = dram_bound(p, waves * unit, base * s * unit) + (s > 1 ? p->unit_overhead : 0);
        } else {
            cost = waves * (split_chunk(mean, s, p->kv_granularity) + MB_UNIT_OVERHEAD) + (s > 1 ? MB_UNIT_OVERHEAD : 0);
        }
        if (cost < best_cost) { best_cost = cost; best = s; }
    }
    return best;
}

/* Boundaries fall on multiples of the granularity; chunks are equal but for the last, and a split
 * count that would leave a chunk empty is reduced. */
static int split_chunk(int len, int splits, int gran)
{
    int tiles = ceil_div(len, gran);
    if (tiles < 1) tiles = 1;
    if (splits > tiles) splits = tiles;
    return ceil_div(tiles, splits) * gran;
}

/* Under "auto" a short batch among long ones is not cut below one tile a split either. */
static int batch_splits(const mb_plan_params_t *p, int splits, int len)
{
    int most = len / p->kv_granularity;
    return p->splits == 0 && splits > most ? (most > 1 ? most : 1) : splits;
}

static int count_units(const mb_plan_params_t *p, int splits, int groups, int *slots, int *reduces, int *smax)
{
    int units = 0;
    *slots = *reduces = *smax = 0;
    for (int b = 0; b < p->batch; b++) {
        int len = p->kv_lens[b], chunk = split_chunk(len, batch_splits(p, splits, len), p->kv_granularity);
        int n = len > 0 ? ceil_div(len, chunk) : 1;
        units += n * groups;
        if (n > 1) { *slots += n * groups; *reduces += groups; }
        if (n > *smax) *smax = n;
    }
    return units;
}

static void fill_units(const mb_plan_params_t *p, mb_plan_t *pl, int splits, int groups, int rows)
{
    int u = 0, slot = 0, g = 0;
    for (int b = 0; b < p->batch; b++) {
        int len = p->kv_lens[b], chunk = split_chunk(len, batch_splits(p, splits, len), p->kv_granularity);
        int n = len > 0 ? ceil_div(len, chunk) : 1;
        for (int grp = 0; grp < groups; grp++) {
            int r0 = grp * p->rows_per_unit, r1 = group_end(p, rows, grp);
            if (n > 1) pl->reduce[g++] = (mb_reduce_t){ b, r0, r1, slot, slot + n };
            for (int s = 0; s < n; s++) {
                int k0 = s * chunk, k1 = k0 + chunk < len ? k0 + chunk : len;
                pl->work[u++] = (mb_work_t){ b, r0, r1, pl->kv_indptr[b] + k0, pl->kv_indptr[b] + k1,
                                             n > 1 ? slot++ : -1, pl->qo_indptr[b] * p->heads + r0,
                                             pl->kv_indptr[b], len };
            }
        }
    }
}

/* Greedy contiguous packing under a capacity: how many workers it needs. */
static int pack_count(const mb_plan_t *pl, int64_t cap)
{
    int n = 1;
    int64_t load = 0;
    for (int u = 0; u < pl->num_units; u++) {
        int64_t w = mb_unit_cost(&pl->work[u]);
        if (load + w > cap && load > 0) { n++; load = 0; }
        load += w;
    }
    return n;
}

/* Contiguous CTA lists with the smallest possible busiest CTA: binary search on the capacity, greedy
 * packing for each (the classic linear-partition problem). The optimum never exceeds the mean plus one
 * unit, since cutting at the mean's multiples achieves that. */
static void assign_ctas(mb_plan_t *pl, int max_ctas)
{
    int64_t lo = 0, hi = 0;
    for (int u = 0; u < pl->num_units; u++) {
        int64_t w = mb_unit_cost(&pl->work[u]);
        if (w > lo) lo = w;
        hi += w;
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (pack_count(pl, mid) <= max_ctas) hi = mid; else lo = mid + 1;
    }
    int cta = 0;
    int64_t load = 0;
    pl->work_indptr[0] = 0;
    for (int u = 0; u < pl->num_units; u++) {
        int64_t w = mb_unit_cost(&pl->work[u]);
        if (load + w > lo && load > 0) { pl->work_indptr[++cta] = u; load = 0; }
        load += w;
    }
    pl->num_ctas = cta + 1;
    pl->work_indptr[pl->num_ctas] = pl->num_units;
}

static void shift_first_boundary(mb_plan_t *pl)
{
    for (int u = 0; u + 1 < pl->num_units; u++) {
        mb_work_t *a = &pl->work[u], *b = &pl->work[u + 1];
        if (a->partial >= 0 && b->partial == a->partial + 1 && a->batch == b->batch && a->kv_end == b->kv_begin) {
            a->kv_end += 1;   /* token kv_end is now counted by two splits */
            return;
        }
    }
}

/* A unit in the kernel's cost model: its tokens, the kernel's overhead a unit and, as a partial, its
 * rows' traffic. */
static int64_t model_unit_cost(const mb_plan_params_t *p, const mb_work_t *u, int as_partial)
{
    return (int64_t)(u->kv_end - u->kv_begin) + p->unit_overhead + (as_partial ? partial_tokens(u->row_end - u->row_begin) : 0);
}

int64_t mb_even_unit_cost(const mb_plan_params_t *p, const mb_work_t *u) { return model_unit_cost(p, u, 1); }

/* "auto" for kernels that state their cost of a unit (mb_plan_params_t.unit_overhead): the row groups'
 * token streams, batch after batch, cut into at most max_ctas contiguous CTA shares of equal cost
 * (tokens plus the overhead a unit), cuts on tile boundaries, so a stream cut by a share's end becomes
 * split units of uneven lengths (FlashMLA's scheduler does the same). Equal splits cannot fit a
 * batch count that does not divide the CTAs: 200 batches of 64 rows took 13 splits, 20 units a CTA,
 * where these shares take 2-3 (results/NOTES.md, twenty-sixth session). The smallest capacity that
 * fits is found by binary search; a share holding load takes another unit only if at least one tile
 * fits after its overhead. */
typedef struct { int b, grp, k0, k1, cta; } piece_t;

/* Packs the streams under capacity cap; fills out (when given) and returns the pieces, else the CTAs.
 * A piece is costed as a partial unit: most pieces of a plan with cuts are. */
static int pack_even(const mb_plan_params_t *p, int groups, int rows, int64_t cap, piece_t *out)
{
    int ctas = 1, n = 0, g = p->kv_granularity;
    int64_t load = 0;
    for (int b = 0; b < p->batch; b++)
        for (int grp = 0; grp < groups; grp++) {
            int len = p->kv_lens[b], k = 0, r0 = grp * p->rows_per_unit;
            int64_t oh = p->unit_overhead + partial_tokens(group_end(p, rows, grp) - r0);
            do {   /* an empty batch is one unit of no tokens: its rows are written as zeros */
                if (load > 0 && load + oh + (len - k < g ? len - k : g) > cap) { ctas++; load = 0; }
                int64_t room = (cap - load - oh) / g;
                int64_t take = room < 1 ? g : room * g;
                int k1 = len - k <= take ? len : k + (int)take;
                if (out) out[n] = (piece_t){ b, grp, k, k1, ctas - 1 };
                n++;
                load += oh + (k1 - k);
                k = k1;
                if (k < len) { ctas++; load = 0; }
            } while (k < len);
        }
    return out ? n : ctas;
}

static int build_even(const mb_plan_params_t *p, mb_plan_t *out, int groups, int rows)
{
    int64_t lo = 1, hi = 0;
    for (int b = 0; b < p->batch; b++)
        hi += (int64_t)groups * (p->kv_lens[b] + p->unit_overhead + partial_tokens(p->rows_per_unit));
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (pack_even(p, groups, rows, mid, NULL) <= p->max_ctas) hi = mid; else lo = mid + 1;
    }
    /* Each share's end cuts at most one stream: pieces <= streams + shares - 1. */
    piece_t *pc = malloc(sizeof(piece_t) * ((size_t)p->batch * groups + p->max_ctas));
    if (!pc) return -1;
    int n = pack_even(p, groups, rows, lo, pc);
    out->num_units = n;
    out->work = malloc(sizeof(mb_work_t) * n);
    out->work_indptr = malloc(sizeof(int32_t) * (pc[n - 1].cta + 2));
    out->reduce = malloc(sizeof(mb_reduce_t) * (n + 1));
    if (!out->work || !out->work_indptr || !out->reduce) {
        free(pc);
        return -1;
    }
    out->work_indptr[0] = 0;
    for (int i = 0, j; i < n; i = j) {
        for (j = i; j < n && pc[j].b == pc[i].b && pc[j].grp == pc[i].grp; j++) {}
        int b = pc[i].b, r0 = pc[i].grp * p->rows_per_unit, r1 = group_end(p, rows, pc[i].grp);
        if (j - i > 1) out->reduce[out->num_reduce++] = (mb_reduce_t){ b, r0, r1, out->num_slots, out->num_slots + j - i };
        if (j - i > out->splits_max) out->splits_max = j - i;
        for (int u = i; u < j; u++) {
            if (u > 0 && pc[u].cta != pc[u - 1].cta) out->work_indptr[pc[u].cta] = u;
            out->work[u] = (mb_work_t){ b, r0, r1, out->kv_indptr[b] + pc[u].k0, out->kv_indptr[b] + pc[u].k1,
                                        j - i > 1 ? out->num_slots++ : -1, out->qo_indptr[b] * p->heads + r0,
                                        out->kv_indptr[b], p->kv_lens[b] };
        }
    }
    out->num_ctas = pc[n - 1].cta + 1;
    out->work_indptr[out->num_ctas] = n;
    free(pc);
    return 0;
}

/* The busiest CTA of a plan under the kernel's cost of a unit: its tokens, the overhead, and for a
 * partial unit its fp32 rows' traffic (written, then read back by the combine) in KV tokens of the
 * same bytes; a plan with partials adds one overhead for the combine. It decides between the equal
 * and the even plan, so that the even one is taken only where it saves more than its partials cost:
 * where equal splits already give every CTA one unit (all of mixed-mla), it is never taken. */
static int64_t model_cost(const mb_plan_params_t *p, const mb_plan_t *pl)
{
    int64_t most = 0, total = 0;
    for (int c = 0; c < pl->num_ctas; c++) {
        int64_t cost = 0;
        for (int u = pl->work_indptr[c]; u < pl->work_indptr[c + 1]; u++)
            cost += model_unit_cost(p, &pl->work[u], pl->work[u].partial >= 0);
        if (cost > most) most = cost;
        total += cost;
    }
    return dram_bound(p, most, total) + (pl->num_reduce ? p->unit_overhead : 0);
}

static uint64_t plan_id(const mb_plan_t *p)
{
    _Static_assert(sizeof(mb_work_t) % sizeof(int32_t) == 0 && sizeof(mb_reduce_t) % sizeof(int32_t) == 0,
                   "work and reduce records are int32 fields only");
    uint64_t h = mb_fnv1a_i32(MB_FNV_OFFSET, (const int32_t *)p->work,
                              (int64_t)p->num_units * (sizeof(mb_work_t) / sizeof(int32_t)));
    h = mb_fnv1a_i32(h, p->work_indptr, (int64_t)p->num_ctas + 1);
    return mb_fnv1a_i32(h, (const int32_t *)p->reduce, (int64_t)p->num_reduce * (sizeof(mb_reduce_t) / sizeof(int32_t)));
}

static int init_indptrs(const mb_plan_params_t *p, mb_plan_t *out)
{
    out->qo_indptr = malloc(sizeof(int32_t) * (p->batch + 1));
    out->kv_indptr = malloc(sizeof(int32_t) * (p->batch + 1));
    if (!out->qo_indptr || !out->kv_indptr) return -1;
    out->qo_indptr[0] = out->kv_indptr[0] = 0;
    for (int b = 0; b < p->batch; b++) {
        out->qo_indptr[b + 1] = out->qo_indptr[b] + p->q_len;
        out->kv_indptr[b + 1] = out->kv_indptr[b] + p->kv_lens[b];
    }
    out->total_q = out->qo_indptr[p->batch];
    out->total_kv = out->kv_indptr[p->batch];
    if (p->page_size > 0) {
        out->page_indptr = malloc(sizeof(int32_t) * (p->batch + 1));
        if (!out->page_indptr) return -1;
        out->page_indptr[0] = 0;
        for (int b = 0; b < p->batch; b++) out->page_indptr[b + 1] = out->page_indptr[b] + ceil_div(p->kv_lens[b], p->page_size);
    }
    return 0;
}

/* Every batch's row groups split the same number of ways, equal chunks (the count asked, or auto's). */
static int build_equal(const mb_plan_params_t *p, mb_plan_t *out, int groups, int rows)
{
    int splits = p->splits ? p->splits : mb_auto_splits(p);
    out->num_units = count_units(p, splits, groups, &out->num_slots, &out->num_reduce, &out->splits_max);
    out->work = malloc(sizeof(mb_work_t) * out->num_units);
    out->work_indptr = malloc(sizeof(int32_t) * (out->num_units + 1));
    out->reduce = malloc(sizeof(mb_reduce_t) * (out->num_reduce + 1));
    if (init_indptrs(p, out) != 0 || !out->work || !out->work_indptr || !out->reduce) return -1;
    fill_units(p, out, splits, groups, rows);
    assign_ctas(out, p->max_ctas);
    return 0;
}

int mb_plan_build(const mb_plan_params_t *p, mb_plan_t *out)
{
    memset(out, 0, sizeof *out);
    if (p->batch < 1 || p->q_len < 1 || p->heads < 1 || p->rows_per_unit < 1 || p->kv_granularity < 1 ||
        p->max_ctas < 1 || p->splits < 0 || p->page_size < 0 || p->unit_overhead < 0 || p->dram_ctas < 0 || !p->kv_lens)
        return -1;
    int64_t total = 0;
    for (int b = 0; b < p->batch; b++) {
        if (p->kv_lens[b] < 0) return -1;
        total += p->kv_lens[b];
    }
    if (total > INT32_MAX || (int64_t)p->batch * p->q_len * p->heads > INT32_MAX) return -1;   /* int32 indptr */
    int rows = p->q_len * p->heads, groups = ceil_div(rows, p->rows_per_unit);
    if (build_equal(p, out, groups, rows) != 0) {
        mb_plan_free(out);
        return -1;
    }
    if (p->splits == 0 && p->unit_overhead > 0) {
        mb_plan_t even;
        memset(&even, 0, sizeof even);
        if (init_indptrs(p, &even) != 0 || build_even(p, &even, groups, rows) != 0) {
            mb_plan_free(&even);
            mb_plan_free(out);
            return -1;
        }
        /* Taken only where it saves more than 1/32 of the busiest CTA: what is left is within the model's
         * own error. A plan that just spreads the same units over the last few CTAs gains nothing where
         * DRAM is the bound (b124 / b128 / b132-q1: the time follows the bytes; NOTES, twenty-sixth
         * session) and pays partials and a combine. */
        int64_t c_equal = model_cost(p, out);
        if (model_cost(p, &even) < c_equal - c_equal / 32) {
            mb_plan_free(out);
            *out = even;
            out->even = 1;
        } else {
            mb_plan_free(&even);
        }
    }
    if (p->fault == MB_FAULT_SPLIT_SHIFT) shift_first_boundary(out);
    out->id = plan_id(out);
    return 0;
}

void mb_plan_free(mb_plan_t *plan)
{
    free(plan->qo_indptr);
    free(plan->kv_indptr);
    free(plan->page_indptr);
    free(plan->work);
    free(plan->work_indptr);
    free(plan->reduce);
    memset(plan, 0, sizeof *plan);
}

int mb_page_table_build(int batch, const int32_t *kv_lens, int page_size, int shuffled, uint64_t seed,
                        int32_t *table, int32_t *page_indptr)
{
    if (batch < 1 || page_size < 1 || !kv_lens || !table || !page_indptr) return -1;
    page_indptr[0] = 0;
    for (int b = 0; b < batch; b++) {
        if (kv_lens[b] < 0) return -1;
        page_indptr[b + 1] = page_indptr[b] + ceil_div(kv_lens[b], page_size);
    }
    int64_t pages = page_indptr[batch];
    for (int64_t i = 0; i < pages; i++) table[i] = (int32_t)i;
    /* Fisher-Yates from the top: element i swaps with a uniform j <= i. The modulo's bias is at most
     * pages / 2^64, far below anything a layout could show. */
    for (int64_t i = pages - 1; shuffled && i > 0; i--) {
        int64_t j = (int64_t)(mb_rng_u64(seed, MB_STREAM_PAGES, (uint64_t)i) % (uint64_t)(i + 1));
        int32_t t = table[i];
        table[i] = table[j];
        table[j] = t;
    }
    return 0;
}
