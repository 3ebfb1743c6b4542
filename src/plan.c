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

static int split_chunk(int len, int splits, int gran);

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
        int64_t waves = (base * s + p->max_ctas - 1) / p->max_ctas;
        int64_t cost = waves * (split_chunk(mean, s, p->kv_granularity) + MB_UNIT_OVERHEAD) + (s > 1 ? MB_UNIT_OVERHEAD : 0);
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
            int r0 = grp * p->rows_per_unit, r1 = r0 + p->rows_per_unit < rows ? r0 + p->rows_per_unit : rows;
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

static uint64_t plan_id(const mb_plan_t *p)
{
    _Static_assert(sizeof(mb_work_t) % sizeof(int32_t) == 0 && sizeof(mb_reduce_t) % sizeof(int32_t) == 0,
                   "work and reduce records are int32 fields only");
    uint64_t h = mb_fnv1a_i32(MB_FNV_OFFSET, (const int32_t *)p->work,
                              (int64_t)p->num_units * (sizeof(mb_work_t) / sizeof(int32_t)));
    h = mb_fnv1a_i32(h, p->work_indptr, (int64_t)p->num_ctas + 1);
    return mb_fnv1a_i32(h, (const int32_t *)p->reduce, (int64_t)p->num_reduce * (sizeof(mb_reduce_t) / sizeof(int32_t)));
}

int mb_plan_build(const mb_plan_params_t *p, mb_plan_t *out)
{
    memset(out, 0, sizeof *out);
    if (p->batch < 1 || p->q_len < 1 || p->heads < 1 || p->rows_per_unit < 1 || p->kv_granularity < 1 ||
        p->max_ctas < 1 || p->splits < 0 || p->page_size < 0 || !p->kv_lens)
        return -1;
    int64_t total = 0;
    for (int b = 0; b < p->batch; b++) {
        if (p->kv_lens[b] < 0) return -1;
        total += p->kv_lens[b];
    }
    if (total > INT32_MAX || (int64_t)p->batch * p->q_len * p->heads > INT32_MAX) return -1;   /* int32 indptr */
    int rows = p->q_len * p->heads, groups = ceil_div(rows, p->rows_per_unit);
    int splits = p->splits ? p->splits : mb_auto_splits(p);
    out->num_units = count_units(p, splits, groups, &out->num_slots, &out->num_reduce, &out->splits_max);
    out->qo_indptr = malloc(sizeof(int32_t) * (p->batch + 1));
    out->kv_indptr = malloc(sizeof(int32_t) * (p->batch + 1));
    out->work = malloc(sizeof(mb_work_t) * out->num_units);
    out->work_indptr = malloc(sizeof(int32_t) * (out->num_units + 1));
    out->reduce = malloc(sizeof(mb_reduce_t) * (out->num_reduce + 1));
    if (!out->qo_indptr || !out->kv_indptr || !out->work || !out->work_indptr || !out->reduce) {
        mb_plan_free(out);
        return -1;
    }
    out->qo_indptr[0] = out->kv_indptr[0] = 0;
    for (int b = 0; b < p->batch; b++) {
        out->qo_indptr[b + 1] = out->qo_indptr[b] + p->q_len;
        out->kv_indptr[b + 1] = out->kv_indptr[b] + p->kv_lens[b];
    }
    out->total_q = out->qo_indptr[p->batch];
    out->total_kv = out->kv_indptr[p->batch];
    fill_units(p, out, splits, groups, rows);
    assign_ctas(out, p->max_ctas);
    if (p->fault == MB_FAULT_SPLIT_SHIFT) shift_first_boundary(out);
    out->id = plan_id(out);
    return 0;
}

void mb_plan_free(mb_plan_t *plan)
{
    free(plan->qo_indptr);
    free(plan->kv_indptr);
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
