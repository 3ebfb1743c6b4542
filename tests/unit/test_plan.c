/* The split-KV work plan: structural invariants on thousands of random shapes, checked by code that
 * knows only the plan's contract (kernels.h, plan.h), and a host replay of what the decode and combine
 * kernels do with a plan, compared with direct softmax attention in double. Both checkers are shown
 * to fail on the planted MB_FAULT_SPLIT_SHIFT plan, so a passing run means something. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "numeric.h"
#include "plan.h"
#include "first_units.h"
#include "unit.h"

/* --- test-local helpers --- */

static uint64_t rng_state;
static uint64_t rng_next(void)
{
    uint64_t x = rng_state;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    return rng_state = x;
}
static int rng_int(int lo, int hi) { return lo + (int)(rng_next() % (uint64_t)(hi - lo + 1)); }

static int cdiv(int64_t a, int64_t b) { return (int)((a + b - 1) / b); }

/* Violation reporting: count every one, print only the first few of a plan so a broken build does
 * not flood the log. */
static int viol_printed;
#define VIOL(...) do { violations++; if (viol_printed++ < 8) { fprintf(stderr, "    plan: "); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static void describe(const mb_plan_params_t *p)
{
    fprintf(stderr, "    shape: batch %d q_len %d heads %d rpu %d gran %d max_ctas %d splits %d fault %d lens",
            p->batch, p->q_len, p->heads, p->rows_per_unit, p->kv_granularity, p->max_ctas, p->splits, p->fault);
    for (int b = 0; b < p->batch && b < 12; b++) fprintf(stderr, " %d", p->kv_lens[b]);
    fprintf(stderr, p->batch > 12 ? " ...\n" : "\n");
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int sort_unique(int *v, int n)
{
    qsort(v, n, sizeof *v, cmp_int);
    int m = 0;
    for (int i = 0; i < n; i++) if (m == 0 || v[m - 1] != v[i]) v[m++] = v[i];
    return m;
}

static int find_sorted(const int *v, int n, int x)
{
    int lo = 0, hi = n;
    while (lo < hi) { int mid = (lo + hi) / 2; if (v[mid] < x) lo = mid + 1; else hi = mid; }
    return lo;
}

/* Coverage: for every batch, every (row, token) pair of [0, q_len*heads) x [its kv range) must be
 * held by exactly one unit, and an empty batch's every row by exactly one (empty) unit. Works on a
 * grid compressed to the units' own row and token boundaries, so cost is about one cell a unit.
 * Batch starts come from the parameters, not from the plan's kv_indptr. Returns the violations. */
static int coverage_violations(const mb_plan_params_t *p, const mb_plan_t *pl)
{
    int violations = 0, rows = p->q_len * p->heads;
    int64_t *start = malloc(sizeof(int64_t) * (p->batch + 1));
    int *cnt = calloc(p->batch + 1, sizeof(int)), *order = malloc(sizeof(int) * (pl->num_units + 1));
    if (!start || !cnt || !order) { free(start); free(cnt); free(order); return 1; }
    start[0] = 0;
    for (int b = 0; b < p->batch; b++) start[b + 1] = start[b] + p->kv_lens[b];
    /* Bucket units by batch (counting sort), dropping those that name no batch. */
    for (int u = 0; u < pl->num_units; u++) {
        int b = pl->work[u].batch;
        if (b < 0 || b >= p->batch) VIOL("unit %d: batch %d out of range", u, b);
        else cnt[b + 1]++;
    }
    for (int b = 0; b < p->batch; b++) cnt[b + 1] += cnt[b];
    int *fill = malloc(sizeof(int) * (p->batch + 1));
    if (!fill) { free(start); free(cnt); free(order); return 1; }
    memcpy(fill, cnt, sizeof(int) * (p->batch + 1));
    for (int u = 0; u < pl->num_units; u++) {
        int b = pl->work[u].batch;
        if (b >= 0 && b < p->batch) order[fill[b]++] = u;
    }
    int cap = 0, *rb = NULL, *tb = NULL, *grid = NULL;
    for (int b = 0; b < p->batch; b++) {
        int n = cnt[b + 1] - cnt[b], len = p->kv_lens[b];
        int64_t k_lo = start[b], k_hi = start[b + 1];
        if (n == 0) { VIOL("batch %d: no unit", b); continue; }
        if (2 * n + 2 > cap) {
            cap = 2 * (2 * n + 2);
            free(rb); free(tb);
            rb = malloc(sizeof(int) * cap);
            tb = malloc(sizeof(int) * cap);
            if (!rb || !tb) { violations++; break; }
        }
        int nr = 0, nt = 0;
        rb[nr++] = 0; rb[nr++] = rows;
        tb[nt++] = 0; tb[nt++] = len;
        for (int i = cnt[b]; i < cnt[b + 1]; i++) {
            const mb_work_t *w = &pl->work[order[i]];
            if (w->row_begin < 0 || w->row_end > rows || w->row_begin >= w->row_end ||
                w->kv_begin < k_lo || w->kv_end > k_hi || w->kv_begin > w->kv_end) {
                VIOL("unit %d (batch %d rows %d..%d kv %d..%d): outside its batch", order[i], b, w->row_begin,
                     w->row_end, w->kv_begin, w->kv_end);
                continue;
            }
            rb[nr++] = w->row_begin; rb[nr++] = w->row_end;
            tb[nt++] = (int)(w->kv_begin - k_lo); tb[nt++] = (int)(w->kv_end - k_lo);
        }
        nr = sort_unique(rb, nr);
        nt = sort_unique(tb, nt);
        if (len == 0) nt = 2;   /* one empty token column: counts rows, each must be held once */
        size_t cells = (size_t)(nr - 1) * (size_t)(nt - 1);
        free(grid);
        grid = calloc(cells ? cells : 1, sizeof(int));
        if (!grid) { violations++; break; }
        for (int i = cnt[b]; i < cnt[b + 1]; i++) {
            const mb_work_t *w = &pl->work[order[i]];
            if (w->row_begin < 0 || w->row_end > rows || w->row_begin >= w->row_end ||
                w->kv_begin < k_lo || w->kv_end > k_hi || w->kv_begin > w->kv_end)
                continue;
            int r0 = find_sorted(rb, nr, w->row_begin), r1 = find_sorted(rb, nr, w->row_end);
            int t0 = 0, t1 = 1;
            if (len > 0) {
                if (w->kv_begin == w->kv_end) continue;   /* holds no token: covers nothing */
                t0 = find_sorted(tb, nt, (int)(w->kv_begin - k_lo));
                t1 = find_sorted(tb, nt, (int)(w->kv_end - k_lo));
            }
            for (int r = r0; r < r1; r++)
                for (int t = t0; t < t1; t++) grid[(size_t)r * (nt - 1) + t]++;
        }
        for (size_t c = 0; c < cells; c++)
            if (grid[c] != 1) {
                int r = (int)(c / (nt - 1)), t = (int)(c % (nt - 1));
                VIOL("batch %d rows %d..%d tokens %d..%d: held %d times", b, rb[r], rb[r + 1], tb[t],
                     len ? tb[t + 1] : 0, grid[c]);
            }
    }
    free(rb); free(tb); free(grid); free(fill); free(start); free(cnt); free(order);
    return violations;
}

/* Whether p's plan is auto's even plan (plan.c, build_even): batches cut unevenly, so the equal
 * splits' own checks (equal chunks, as many splits in every row group, no more than asked) do not
 * apply. Only auto, with a kernel's unit cost, may make one. */
static int is_even_plan(const mb_plan_params_t *p, const mb_plan_t *pl)
{
    if (pl->even && (p->splits != 0 || p->unit_overhead == 0)) {
        printf("    plan: even, but asked %d splits with unit cost %d\n", p->splits, p->unit_overhead);
        return -1;
    }
    return pl->even;
}

/* Everything else the kernels and the combine rely on. splits_eff is the split count the plan was
 * asked for (the auto count resolved). Returns the violations. */
static int plan_violations(const mb_plan_params_t *p, const mb_plan_t *pl, int splits_eff)
{
    const int even = is_even_plan(p, pl);
    if (even < 0) return 1;
    int violations = 0, rows = p->q_len * p->heads, rpu = p->rows_per_unit, gran = p->kv_granularity;
    int64_t kv = 0;
    for (int b = 0; b <= p->batch; b++) {
        if (pl->qo_indptr[b] != b * p->q_len) VIOL("qo_indptr[%d] = %d", b, pl->qo_indptr[b]);
        if (pl->kv_indptr[b] != kv) VIOL("kv_indptr[%d] = %d, want %lld", b, pl->kv_indptr[b], (long long)kv);
        if (b < p->batch) kv += p->kv_lens[b];
    }
    if (pl->total_q != p->batch * p->q_len) VIOL("total_q %d", pl->total_q);
    if (pl->total_kv != kv) VIOL("total_kv %lld", (long long)pl->total_kv);

    /* CTA lists: contiguous, none empty, at most max_ctas. */
    if (pl->num_units < 1) VIOL("num_units %d", pl->num_units);
    if (pl->num_ctas < 1 || pl->num_ctas > p->max_ctas) VIOL("num_ctas %d, max %d", pl->num_ctas, p->max_ctas);
    if (pl->num_ctas >= 1 && pl->num_ctas <= pl->num_units) {
        if (pl->work_indptr[0] != 0) VIOL("work_indptr[0] = %d", pl->work_indptr[0]);
        if (pl->work_indptr[pl->num_ctas] != pl->num_units) VIOL("work_indptr ends at %d", pl->work_indptr[pl->num_ctas]);
        for (int c = 0; c < pl->num_ctas; c++)
            if (pl->work_indptr[c + 1] <= pl->work_indptr[c]) VIOL("CTA %d empty or reversed", c);
    }

    /* Per unit: inside its batch, rows within one slot's height, boundaries on the granularity,
     * whole-batch units for direct writes, unique in-range slots. */
    char *slot_seen = calloc(pl->num_slots + 1, 1);
    if (!slot_seen) return violations + 1;
    int partial_units = 0;
    int64_t total_cost = 0, max_cost = 0;
    /* An even plan balances its CTAs by its own unit cost (overhead and partial traffic a unit). */
#define UNIT_COST(w) (even ? mb_even_unit_cost(p, (w)) : mb_unit_cost(w))
    for (int u = 0; u < pl->num_units; u++) {
        const mb_work_t *w = &pl->work[u];
        int64_t c = UNIT_COST(w);
        total_cost += c;
        if (c > max_cost) max_cost = c;
        if (w->batch < 0 || w->batch >= p->batch) { VIOL("unit %d: batch %d", u, w->batch); continue; }
        int32_t k_lo = pl->kv_indptr[w->batch], k_hi = pl->kv_indptr[w->batch + 1];
        if (w->q_row0 != pl->qo_indptr[w->batch] * p->heads + w->row_begin || w->kv_start != k_lo || w->kv_len != k_hi - k_lo)
            VIOL("unit %d: batch offsets q_row0 %d, kv_start %d, kv_len %d", u, w->q_row0, w->kv_start, w->kv_len);
        if (w->row_begin < 0 || w->row_end > rows || w->row_begin >= w->row_end || w->row_end - w->row_begin > rpu)
            VIOL("unit %d: rows %d..%d of %d, rpu %d", u, w->row_begin, w->row_end, rows, rpu);
        if (w->kv_begin < k_lo || w->kv_end > k_hi || w->kv_begin > w->kv_end)
            VIOL("unit %d: kv %d..%d outside batch %d's %d..%d", u, w->kv_begin, w->kv_end, w->batch, k_lo, k_hi);
        if (k_hi > k_lo && w->kv_begin == w->kv_end) VIOL("unit %d: empty range in a non-empty batch", u);
        if ((w->kv_begin - k_lo) % gran != 0) VIOL("unit %d: begins at %d, off the granularity %d", u, w->kv_begin - k_lo, gran);
        if (w->kv_end != k_hi && (w->kv_end - k_lo) % gran != 0)
            VIOL("unit %d: ends at %d, off the granularity %d", u, w->kv_end - k_lo, gran);
        if (w->partial < 0) {
            if (w->partial != -1) VIOL("unit %d: partial %d", u, w->partial);
            if (w->kv_begin != k_lo || w->kv_end != k_hi) VIOL("unit %d: writes output but covers %d..%d of %d..%d", u,
                                                               w->kv_begin, w->kv_end, k_lo, k_hi);
        } else {
            partial_units++;
            if (w->partial >= pl->num_slots) VIOL("unit %d: slot %d of %d", u, w->partial, pl->num_slots);
            else if (slot_seen[w->partial]++) VIOL("unit %d: slot %d used twice", u, w->partial);
        }
    }
    free(slot_seen);
    if (partial_units != pl->num_slots) VIOL("%d partial units, num_slots %d", partial_units, pl->num_slots);

    /* Balance: a CTA holds at most the mean plus one unit. The brief's bound uses the CTAs kept;
     * plan.c's own claim is the mean over min(units, max_ctas) intervals, which is tighter. */
    int64_t intervals = pl->num_units < p->max_ctas ? pl->num_units : p->max_ctas;
    for (int c = 0; c < pl->num_ctas && pl->num_ctas <= pl->num_units; c++) {
        int64_t cost = 0;
        for (int u = pl->work_indptr[c]; u < pl->work_indptr[c + 1] && u < pl->num_units; u++)
            cost += UNIT_COST(&pl->work[u]);
        if (cost * pl->num_ctas > total_cost + max_cost * pl->num_ctas)
            VIOL("CTA %d: cost %lld > %lld/%d + %lld", c, (long long)cost, (long long)total_cost, pl->num_ctas,
                 (long long)max_cost);
        if (cost * intervals > total_cost + max_cost * intervals)
            VIOL("CTA %d: cost %lld > %lld/%lld + %lld", c, (long long)cost, (long long)total_cost,
                 (long long)intervals, (long long)max_cost);
    }

    /* Group units by (batch, row_begin) with a counting sort on key batch*rows + row_begin, then order
     * each group by kv_begin (groups are short and usually sorted: insertion sort). */
    int64_t nkeys = (int64_t)p->batch * rows;
    int *kcnt = calloc(nkeys + 1, sizeof(int)), *order = malloc(sizeof(int) * pl->num_units);
    int *run_of_key = malloc(sizeof(int) * (nkeys + 1)), *matched = calloc(nkeys + 1, sizeof(int));
    if (!kcnt || !order || !run_of_key || !matched) { free(kcnt); free(order); free(run_of_key); free(matched); return violations + 1; }
    for (int u = 0; u < pl->num_units; u++) {
        const mb_work_t *w = &pl->work[u];
        if (w->batch < 0 || w->batch >= p->batch || w->row_begin < 0 || w->row_begin >= rows) continue;
        kcnt[(int64_t)w->batch * rows + w->row_begin + 1]++;
    }
    for (int64_t k = 0; k < nkeys; k++) kcnt[k + 1] += kcnt[k];
    {
        int *fill = malloc(sizeof(int) * (nkeys + 1));
        if (!fill) { free(kcnt); free(order); free(run_of_key); free(matched); return violations + 1; }
        memcpy(fill, kcnt, sizeof(int) * (nkeys + 1));
        for (int u = 0; u < pl->num_units; u++) {
            const mb_work_t *w = &pl->work[u];
            if (w->batch < 0 || w->batch >= p->batch || w->row_begin < 0 || w->row_begin >= rows) continue;
            order[fill[(int64_t)w->batch * rows + w->row_begin]++] = u;
        }
        free(fill);
    }
    int smax = 0, split_groups = 0;
    int *splits_of_batch = calloc(p->batch, sizeof(int));
    for (int64_t k = 0; k < nkeys; k++) {
        int i0 = kcnt[k], i1 = kcnt[k + 1], n = i1 - i0;
        run_of_key[k] = n ? (int)k : -1;
        if (!n) continue;
        for (int i = i0 + 1; i < i1; i++) {
            int v = order[i], j = i;
            while (j > i0 && pl->work[order[j - 1]].kv_begin > pl->work[v].kv_begin) { order[j] = order[j - 1]; j--; }
            order[j] = v;
        }
        int b = (int)(k / rows);
        const mb_work_t *first = &pl->work[order[i0]];
        if (n > smax) smax = n;
        if (!even && splits_of_batch && splits_of_batch[b] && splits_of_batch[b] != n)
            VIOL("batch %d: row groups split %d and %d ways", b, splits_of_batch[b], n);
        if (splits_of_batch) splits_of_batch[b] = n;
        if (!even && n > splits_eff) VIOL("batch %d rows %d..: %d splits, asked %d", b, first->row_begin, n, splits_eff);
        if (n > 1) split_groups++;
        /* Chunks equal but for the last, which is no longer. */
        int chunk = first->kv_end - first->kv_begin;
        for (int i = i0; i < i1; i++) {
            const mb_work_t *w = &pl->work[order[i]];
            if (w->row_end != first->row_end) VIOL("batch %d rows %d..: row ends %d and %d", b, first->row_begin,
                                                   first->row_end, w->row_end);
            int len = w->kv_end - w->kv_begin;
            if (!even && (i + 1 < i1 ? len != chunk : len > chunk))
                VIOL("batch %d rows %d..: split %d holds %d tokens, first %d", b, first->row_begin, i - i0, len, chunk);
            if ((n == 1) != (w->partial < 0)) VIOL("unit %d: partial %d in a group of %d", order[i], w->partial, n);
        }
    }
    free(splits_of_batch);
    if (smax != pl->splits_max) VIOL("splits_max %d, groups split at most %d ways", pl->splits_max, smax);
    if (split_groups != pl->num_reduce) VIOL("num_reduce %d, %d split groups", pl->num_reduce, split_groups);

    /* Reduce map: exactly one entry per split group, whose slots are exactly that group's, in KV order. */
    for (int g = 0; g < pl->num_reduce; g++) {
        const mb_reduce_t *r = &pl->reduce[g];
        if (r->batch < 0 || r->batch >= p->batch || r->row_begin < 0 || r->row_begin >= rows) {
            VIOL("reduce %d: batch %d rows %d.. out of range", g, r->batch, r->row_begin);
            continue;
        }
        int64_t k = (int64_t)r->batch * rows + r->row_begin;
        if (run_of_key[k] < 0) { VIOL("reduce %d: no units for batch %d rows %d..", g, r->batch, r->row_begin); continue; }
        matched[k]++;
        int i0 = kcnt[k], n = kcnt[k + 1] - i0;
        if (r->row_end != pl->work[order[i0]].row_end) VIOL("reduce %d: row_end %d, units %d", g, r->row_end,
                                                            pl->work[order[i0]].row_end);
        if (r->slot_end - r->slot_begin != n) VIOL("reduce %d: %d slots for %d units", g, r->slot_end - r->slot_begin, n);
        else
            for (int i = 0; i < n; i++)
                if (pl->work[order[i0 + i]].partial != r->slot_begin + i)
                    VIOL("reduce %d: slot %d holds split %d (partial %d)", g, r->slot_begin + i, i,
                         pl->work[order[i0 + i]].partial);
    }
    for (int64_t k = 0; k < nkeys; k++) {
        int n = kcnt[k + 1] - kcnt[k];
        if (n > 1 && matched[k] != 1) VIOL("batch %d rows %d..: %d reduce entries", (int)(k / rows), (int)(k % rows), matched[k]);
        if (n == 1 && matched[k]) VIOL("batch %d rows %d..: unsplit but reduced", (int)(k / rows), (int)(k % rows));
    }
    free(kcnt); free(order); free(run_of_key); free(matched);
#undef UNIT_COST
    return violations;
}

static int plans_equal(const mb_plan_t *a, const mb_plan_t *b, int batch)
{
    return a->num_units == b->num_units && a->num_ctas == b->num_ctas && a->num_slots == b->num_slots &&
           a->num_reduce == b->num_reduce && a->splits_max == b->splits_max && a->total_kv == b->total_kv &&
           a->total_q == b->total_q &&
           !memcmp(a->qo_indptr, b->qo_indptr, sizeof(int32_t) * (batch + 1)) &&
           !memcmp(a->kv_indptr, b->kv_indptr, sizeof(int32_t) * (batch + 1)) &&
           !memcmp(a->work, b->work, sizeof(mb_work_t) * a->num_units) &&
           !memcmp(a->work_indptr, b->work_indptr, sizeof(int32_t) * (a->num_ctas + 1)) &&
           !memcmp(a->reduce, b->reduce, sizeof(mb_reduce_t) * a->num_reduce);
}

/* KV lengths: many tiny ones (0, 1, 2, around the granularities), many short, many long, and lengths
 * that are not multiples of any granularity. */
static int random_len(void)
{
    static const int small[] = { 0, 1, 2, 3, 15, 16, 17, 63, 64, 65, 127, 128, 129 };
    int k = rng_int(0, 9);
    if (k < 2) return small[rng_int(0, (int)(sizeof small / sizeof small[0]) - 1)];
    if (k < 5) return rng_int(0, 300);
    return rng_int(0, 20000);
}

static void random_shape(mb_plan_params_t *p, int32_t *lens)
{
    static const int head_set[] = { 1, 2, 16, 32, 64, 128 };
    static const int ctas[] = { 1, 7, 132, 528 };
    /* Mostly small batches with a tail up to 300, so thousands of shapes stay within seconds. */
    int k = rng_int(0, 9);
    p->batch = k < 6 ? rng_int(1, 16) : k < 9 ? rng_int(1, 64) : rng_int(1, 300);
    p->q_len = rng_int(1, 8);
    p->heads = rng_int(0, 7) < 6 ? head_set[rng_int(0, 5)] : rng_int(1, 128);
    p->rows_per_unit = rng_int(0, 1) ? 16 : 64;
    p->kv_granularity = rng_int(0, 1) ? 16 : 64;
    p->max_ctas = ctas[rng_int(0, 3)];
    p->splits = rng_int(0, 2) == 0 ? 0 : rng_int(0, 3) == 0 ? rng_int(1, 256) : rng_int(1, 16);
    p->fault = MB_FAULT_NONE;
    p->page_size = 0;
    /* Half the shapes as a kernel that states its unit cost (sm90's three values), whose "auto" may cut
     * batches unevenly. */
    static const int overheads[] = { 12, 75, 300 };
    p->unit_overhead = rng_int(0, 1) ? overheads[rng_int(0, 2)] : 0;
    p->dram_ctas = p->unit_overhead && rng_int(0, 1) ? rng_int(1, p->max_ctas) : 0;
    int same = rng_int(0, 5) == 0, len0 = random_len();
    for (int b = 0; b < p->batch; b++) lens[b] = same ? len0 : random_len();
    p->kv_lens = lens;
}

static void test_plan_invariants_random(void)
{
    int32_t lens[300];
    mb_plan_params_t p;
    rng_state = 0x0123456789abcdefull;
    int plans = 0, split_plans = 0, bad = 0;
    for (int it = 0; it < 3000 && bad < 5; it++) {
        random_shape(&p, lens);
        mb_plan_t a, b;
        if (mb_plan_build(&p, &a) != 0) { CHECKF(0, "build failed"); describe(&p); bad++; continue; }
        int splits_eff = p.splits ? p.splits : mb_auto_splits(&p);
        viol_printed = 0;
        int v = coverage_violations(&p, &a) + plan_violations(&p, &a, splits_eff);
        if (v) { CHECKF(v == 0, "%d violations", v); describe(&p); bad++; }
        /* Determinism: a second build is byte-identical. Checked on a sample, it doubles the cost. */
        if (it % 4 == 0) {
            CHECK(mb_plan_build(&p, &b) == 0);
            CHECK(plans_equal(&a, &b, p.batch));
            mb_plan_free(&b);
        }
        plans++;
        split_plans += a.splits_max > 1;
        mb_plan_free(&a);
    }
    /* The generator must actually reach the interesting cases. */
    CHECK(plans == 3000);
    CHECKF(split_plans > 1000, "only %d plans split", split_plans);
}

/* Shapes chosen by hand for corners: every batch empty, lengths one below/above the granularity,
 * one CTA, more CTAs than units, rows not a multiple of rows_per_unit. */
static void test_plan_corner_shapes(void)
{
    static const struct { int batch, q_len, heads, rpu, gran, ctas, splits; int32_t lens[4]; } cs[] = {
        { 3, 1, 16, 16, 16, 132, 4, { 0, 0, 0 } },
        { 1, 1, 1, 16, 16, 1, 8, { 1 } },
        { 2, 2, 17, 16, 16, 7, 3, { 15, 17 } },
        { 4, 8, 128, 64, 64, 528, 256, { 20000, 1, 0, 64 } },
        { 1, 3, 5, 16, 16, 528, 100, { 1600 } },
        { 2, 1, 128, 64, 16, 132, 0, { 65536, 65536 } },
        { 1, 1, 16, 16, 16, 132, 0, { 255 } },
        { 1, 1, 16, 16, 16, 132, 0, { 256 } },
        { 4, 4, 3, 16, 64, 1, 5, { 65, 64, 63, 129 } },
    };
    for (unsigned i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        mb_plan_params_t p = { cs[i].batch, cs[i].q_len, cs[i].heads, cs[i].lens, cs[i].splits, cs[i].rpu,
                               cs[i].gran, cs[i].ctas, MB_FAULT_NONE, 0, 0, 0 };
        mb_plan_t pl;
        CHECK(mb_plan_build(&p, &pl) == 0);
        viol_printed = 0;
        int v = coverage_violations(&p, &pl) + plan_violations(&p, &pl, p.splits ? p.splits : mb_auto_splits(&p));
        CHECKF(v == 0, "corner shape %u: %d violations", i, v);
        if (v) describe(&p);
        mb_plan_free(&pl);
    }
    /* Known counts: 1600 tokens in 100 tiles asked 100 splits gives 100 units a row group. */
    int32_t l1 = 1600;
    mb_plan_params_t p = { 1, 1, 16, &l1, 100, 16, 16, 132, 0, 0, 0, 0 };
    mb_plan_t pl;
    CHECK(mb_plan_build(&p, &pl) == 0);
    CHECK(pl.num_units == 100 && pl.splits_max == 100 && pl.num_slots == 100 && pl.num_reduce == 1);
    CHECK(pl.num_ctas == 100);
    mb_plan_free(&pl);
    /* 17 tokens at granularity 16 asked 8 splits: only 2 tiles, so 2 splits of 16 and 1. */
    int32_t l2 = 17;
    p = (mb_plan_params_t){ 1, 1, 16, &l2, 8, 16, 16, 132, 0, 0, 0, 0 };
    CHECK(mb_plan_build(&p, &pl) == 0);
    CHECK(pl.num_units == 2 && pl.splits_max == 2);
    CHECK(pl.work[0].kv_end - pl.work[0].kv_begin == 16 && pl.work[1].kv_end - pl.work[1].kv_begin == 1);
    mb_plan_free(&pl);
}

/* The plan id names the partition: the same work split the same way has one id, whatever count was
 * asked; any change to a unit, a CTA boundary or the reduce map gives another. */
static uint64_t id_of(mb_plan_params_t p)
{
    mb_plan_t pl;
    CHECK(mb_plan_build(&p, &pl) == 0);
    uint64_t id = pl.id;
    mb_plan_free(&pl);
    return id;
}

static void test_plan_id(void)
{
    int32_t lens[4] = { 1024, 1024, 1024, 1024 }, ragged[4] = { 1024, 1024, 1024, 1000 };
    mb_plan_params_t p = { 4, 1, 32, lens, 16, 64, 64, 132, MB_FAULT_NONE, 0, 0, 0 };
    const uint64_t id16 = id_of(p);
    p.splits = 32;                              /* 16 tiles a batch: 32 and 64 splits are 16 */
    CHECK(id_of(p) == id16);
    p.splits = 64;
    CHECK(id_of(p) == id16);
    p.splits = 8;
    CHECK(id_of(p) != id16);
    p.splits = 16;
    p.max_ctas = 32;                            /* the same 64 units on 32 CTAs */
    CHECK(id_of(p) != id16);
    p.max_ctas = 132;
    p.kv_lens = ragged;                         /* one batch's last unit shorter */
    CHECK(id_of(p) != id16);
    p.kv_lens = lens;
    p.fault = MB_FAULT_SPLIT_SHIFT;             /* one boundary moved by a token */
    CHECK(id_of(p) != id16);
}

static void test_plan_invalid_params(void)
{
    int32_t lens[2] = { 10, 20 }, neg[2] = { 10, -1 };
    const mb_plan_params_t ok = { 2, 1, 16, lens, 0, 16, 16, 132, 0, 0, 0, 0 };
    mb_plan_params_t p;
    mb_plan_t pl;
    CHECK(mb_plan_build(&ok, &pl) == 0);
    mb_plan_free(&pl);
    CHECK(pl.work == NULL && pl.num_units == 0);   /* free leaves it zeroed */
#define BAD(field, value) do { p = ok; p.field = value; memset(&pl, 0x5a, sizeof pl); \
        CHECKF(mb_plan_build(&p, &pl) == -1, "%s = %s accepted", #field, #value); \
        CHECK(pl.work == NULL && pl.reduce == NULL && pl.kv_indptr == NULL && pl.num_units == 0); \
        mb_plan_free(&pl); } while (0)
    BAD(batch, 0);
    BAD(batch, -3);
    BAD(q_len, 0);
    BAD(heads, 0);
    BAD(rows_per_unit, 0);
    BAD(kv_granularity, 0);
    BAD(max_ctas, 0);
    BAD(splits, -1);
    BAD(kv_lens, NULL);
    BAD(kv_lens, neg);
    BAD(page_size, -1);
#undef BAD
}

/* Cost of the busiest worker of the plan for p (the plan's critical path). */
static int64_t busiest(const mb_plan_params_t *p)
{
    mb_plan_t pl;
    int64_t most = 0;
    if (mb_plan_build(p, &pl) != 0) return -1;
    for (int c = 0; c < pl.num_ctas; c++) {
        int64_t cost = 0;
        for (int u = pl.work_indptr[c]; u < pl.work_indptr[c + 1]; u++) cost += mb_unit_cost(&pl.work[u]);
        if (cost > most) most = cost;
    }
    mb_plan_free(&pl);
    return most;
}

static void test_auto_splits(void)
{
    int32_t lens[300];
    rng_state = 0x5851f42d4c957f2dull;
    for (int it = 0; it < 2000; it++) {
        mb_plan_params_t p;
        random_shape(&p, lens);
        int s = mb_auto_splits(&p);
        int64_t sum = 0;
        for (int b = 0; b < p.batch; b++) sum += lens[b];
        CHECKF(s >= 1, "auto %d", s);
        /* More than one split only when the mean length gives every split at least one tile. */
        if (s > 1) CHECKF(sum >= (int64_t)p.kv_granularity * s * p.batch, "auto %d splits, mean %lld", s, (long long)(sum / p.batch));
        /* The built auto plan's splits are no shorter than one tile on average either. */
        if (it % 8 == 0 && p.batch <= 64) {
            p.splits = 0;
            mb_plan_t pl;
            CHECK(mb_plan_build(&p, &pl) == 0);
            /* Units per row group, summed over batches, is num_units / groups. */
            int groups = cdiv((int64_t)p.q_len * p.heads, p.rows_per_unit);
            int even = is_even_plan(&p, &pl);
            if (pl.splits_max > 1 && !even)
                CHECKF(sum * groups >= (int64_t)p.kv_granularity * pl.num_units, "auto plan: %lld tokens in %d units of %d groups",
                       (long long)sum, pl.num_units, groups);
            CHECK(even || pl.splits_max <= s);
            mb_plan_free(&pl);
        }
        /* Auto is chosen to shorten the busiest worker: its plan never has a busier worker than the
         * unsplit plan (beyond the combine's cost), on every shape. */
        if (it % 4 == 0) {
            mb_plan_params_t f = p;
            int32_t same[300];
            for (int b = 0; b < p.batch; b++) same[b] = lens[0];
            f.kv_lens = same;
            f.splits = 0;
            int64_t c_auto = busiest(&f);
            f.splits = 1;
            int64_t c_one = busiest(&f);
            CHECKF(c_auto <= c_one + 2 * MB_UNIT_OVERHEAD, "len %d batch %d q %d h %d W %d: auto %lld, unsplit %lld",
                   lens[0], p.batch, p.q_len, p.heads, p.max_ctas, (long long)c_auto, (long long)c_one);
        }
    }
    /* A single long sequence on a big GPU splits many ways; a big batch of them does not split. */
    int32_t one = 100000, many[256];
    for (int b = 0; b < 256; b++) many[b] = 4096;
    mb_plan_params_t p1 = { 1, 1, 128, &one, 0, 64, 64, 528, 0, 0, 0, 0 };
    mb_plan_params_t p2 = { 256, 2, 128, many, 0, 64, 64, 528, 0, 0, 0, 0 };   /* 1024 units unsplit > 528 CTAs */
    CHECK(mb_auto_splits(&p1) >= 16);
    CHECK(mb_auto_splits(&p2) == 1);
    /* On an idle GPU a short sequence splits, but only while that shortens the longest split: 200
     * tokens are 13 tiles of 16; 7 splits already make the longest 2 tiles, and 8 to 12 splits would
     * leave it at 2 tiles while adding partials, so 7. One tile never splits. */
    int32_t shortl = 200, one_tile = 16;
    mb_plan_params_t p3 = { 1, 1, 1, &shortl, 0, 16, 16, 528, 0, 0, 0, 0 };
    CHECK(mb_auto_splits(&p3) == 7);
    mb_plan_params_t p4 = { 1, 1, 1, &one_tile, 0, 16, 16, 528, 0, 0, 0, 0 };
    CHECK(mb_auto_splits(&p4) == 1);
}

/* Auto with sm90's costs on the H200's 132 CTAs: mixed-mla's eight shapes keep the plans they had
 * (the device tables stay valid); 200 batches of 64 rows, where equal splits gave a CTA 20 units, get
 * an even plan of at most 3 a CTA. And the checkers see a dropped token and a swapped slot in it. */
static void test_even_plan(void)
{
    static const int mixed[8][4] = { { 4, 1, 32, 1024 }, { 4, 4, 32, 8192 }, { 32, 1, 16, 8192 }, { 32, 4, 16, 1024 },
                                     { 32, 1, 32, 1024 }, { 32, 4, 32, 8192 }, { 128, 1, 16, 8192 }, { 128, 4, 16, 8192 } };
    static int32_t lens[200];
    for (int i = 0; i < 8; i++) {
        int rows = mixed[i][1] * mixed[i][2];
        for (int b = 0; b < mixed[i][0]; b++) lens[b] = mixed[i][3];
        mb_plan_params_t p = { mixed[i][0], mixed[i][1], mixed[i][2], lens, 0, 64, 64, 132, 0, 0,
                               rows <= 16 ? 12 : rows <= 32 ? 75 : 300, rows <= 16 ? 100 : 0 }, q = p;
        q.unit_overhead = q.dram_ctas = 0;
        mb_plan_t pl, old;
        CHECK(mb_plan_build(&p, &pl) == 0 && mb_plan_build(&q, &old) == 0);
        CHECKF(pl.id == old.id, "mixed-mla shape %d: the kernel's costs changed its plan", i);
        mb_plan_free(&pl);
        mb_plan_free(&old);
    }
    /* Where the sweep of configs/uneven.json found an equal split best, auto takes it: b100-q1-kv8192-h16
     * unsplit (DRAM-bound: 100 CTAs already read at DRAM's rate) and b20-q4-kv8192-h32 at 3 splits. */
    for (int b = 0; b < 100; b++) lens[b] = 8192;
    mb_plan_params_t pd = { 100, 1, 16, lens, 0, 64, 64, 132, 0, 0, 12, 100 };
    mb_plan_t pl;
    CHECK(mb_plan_build(&pd, &pl) == 0);
    CHECKF(!pl.even && pl.splits_max == 1, "b100-q1: even %d, %d splits", pl.even, pl.splits_max);
    mb_plan_free(&pl);
    mb_plan_params_t pc = { 20, 4, 32, lens, 0, 64, 64, 132, 0, 0, 300, 0 };
    CHECK(mb_plan_build(&pc, &pl) == 0);
    CHECKF(!pl.even && pl.splits_max == 3, "b20-q4-h32: even %d, %d splits", pl.even, pl.splits_max);
    mb_plan_free(&pl);
    for (int b = 0; b < 200; b++) lens[b] = 8192;
    mb_plan_params_t p = { 200, 4, 16, lens, 0, 64, 64, 132, 0, 0, 300, 0 };
    CHECK(mb_plan_build(&p, &pl) == 0);
    CHECK(is_even_plan(&p, &pl));
    int most = 0;
    for (int c = 0; c < pl.num_ctas; c++)
        if (pl.work_indptr[c + 1] - pl.work_indptr[c] > most) most = pl.work_indptr[c + 1] - pl.work_indptr[c];
    CHECKF(most <= 3 && pl.num_ctas == 132, "%d units on a CTA, %d CTAs", most, pl.num_ctas);
    viol_printed = 0;
    CHECK(coverage_violations(&p, &pl) + plan_violations(&p, &pl, 0) == 0);
    viol_printed = 1000;   /* expected violations: keep quiet */
    int u = pl.work_indptr[7];
    pl.work[u].kv_end--;   /* a dropped token */
    CHECK(coverage_violations(&p, &pl) + plan_violations(&p, &pl, 0) > 0);
    pl.work[u].kv_end++;
    int a = -1, b2 = -1;   /* two partial units of different batches trade slots */
    for (int k = 0; k < pl.num_units && b2 < 0; k++)
        if (pl.work[k].partial >= 0) {
            if (a < 0) a = k;
            else if (pl.work[k].batch != pl.work[a].batch) b2 = k;
        }
    CHECK(a >= 0 && b2 >= 0);
    int s = pl.work[a].partial;
    pl.work[a].partial = pl.work[b2].partial;
    pl.work[b2].partial = s;
    CHECK(plan_violations(&p, &pl, 0) > 0);
    mb_plan_free(&pl);
}

/* The invariant checkers themselves can fail: each hand-made corruption of a good plan must be seen. */
static void test_checker_catches_mutations(void)
{
    int32_t lens[3] = { 100, 300, 17 };
    mb_plan_params_t p = { 3, 2, 20, lens, 4, 16, 16, 7, MB_FAULT_NONE, 0, 0, 0 };
    enum { NMUT = 10 };
    for (int m = 0; m < NMUT; m++) {
        mb_plan_t pl;
        CHECK(mb_plan_build(&p, &pl) == 0);
        viol_printed = 0;
        CHECK(coverage_violations(&p, &pl) + plan_violations(&p, &pl, 4) == 0);
        /* First unit of a split group and its neighbour in KV order (fill order keeps them adjacent). */
        int u = 0;
        while (u + 1 < pl.num_units && !(pl.work[u].partial >= 0 && pl.work[u + 1].partial == pl.work[u].partial + 1)) u++;
        mb_work_t *a = &pl.work[u], *b = &pl.work[u + 1];
        int last = pl.num_units - 1;
        switch (m) {
        case 0: { int t = a->partial; a->partial = b->partial; b->partial = t; } break;  /* slots out of KV order */
        case 1: pl.work[last].kv_end -= 1; break;                                         /* token dropped */
        case 2: pl.reduce[0].slot_end -= 1; break;                                        /* slot left out */
        case 3: pl.work_indptr[1] = pl.work_indptr[0]; break;                             /* empty CTA */
        case 4: a->partial = -1; break;                                                   /* direct unit, partial range */
        case 5: a->row_end += 1; break;                                                   /* rows overlap */
        case 6: pl.splits_max += 1; break;
        case 7: a->kv_end += 8; b->kv_begin += 8; break;                                  /* boundary off the grid */
        case 8: b->partial = a->partial; break;                                           /* slot shared */
        case 9: for (int c = 1; c < pl.num_ctas; c++) pl.work_indptr[c] = pl.num_units - pl.num_ctas + c; break;
        }
        viol_printed = 1000;   /* expected violations: keep quiet */
        int v = coverage_violations(&p, &pl) + plan_violations(&p, &pl, 4);
        CHECKF(v > 0, "mutation %d not detected", m);
        mb_plan_free(&pl);
    }
}

/* --- the planted fault --- */

static void test_split_shift_fails_coverage(void)
{
    int32_t lens[300];
    rng_state = 0x2545f4914f6cdd1dull;
    int tried = 0, caught = 0;
    for (int it = 0; it < 400; it++) {
        mb_plan_params_t p;
        random_shape(&p, lens);
        mb_plan_t good, bad;
        CHECK(mb_plan_build(&p, &good) == 0);
        p.fault = MB_FAULT_SPLIT_SHIFT;
        CHECK(mb_plan_build(&p, &bad) == 0);
        viol_printed = 1000;   /* expected violations: keep quiet */
        int vg = coverage_violations(&p, &good), vb = coverage_violations(&p, &bad);
        CHECK(vg == 0);
        if (good.num_slots > 0) {
            /* A split exists: the fault must show as a token held twice. */
            tried++;
            caught += vb > 0;
            CHECKF(vb > 0, "faulty plan passed the coverage check");
            if (vb == 0) describe(&p);
            /* And it differs from the good plan in exactly one unit's end, by one token. */
            int diff = 0;
            for (int u = 0; u < good.num_units; u++)
                if (memcmp(&good.work[u], &bad.work[u], sizeof(mb_work_t))) {
                    diff++;
                    CHECK(bad.work[u].kv_end == good.work[u].kv_end + 1 && bad.work[u].kv_begin == good.work[u].kv_begin);
                }
            CHECK(diff == 1);
        } else {
            CHECK(vb == 0 && plans_equal(&good, &bad, p.batch));
        }
        mb_plan_free(&good);
        mb_plan_free(&bad);
    }
    CHECKF(tried > 100 && caught == tried, "caught %d of %d", caught, tried);
}

/* --- host replay of decode + combine --- */

/* Replay shapes are tiny: per-row score scratch lives on the stack. */
#define REPLAY_MAX_LEN 128

typedef struct {
    int batch, q_len, heads, fnuz;
    int32_t lens[8];
    double *q, *kv;      /* fp8 values (codes decoded, unscaled): [total_q][heads][576], [total_kv][576] */
    double kv_scale, sm_scale;
    int32_t qo[9], kvo[9];
} replay_in_t;

static void make_inputs(replay_in_t *in, uint64_t seed)
{
    in->qo[0] = in->kvo[0] = 0;
    for (int b = 0; b < in->batch; b++) {
        in->qo[b + 1] = in->qo[b] + in->q_len;
        in->kvo[b + 1] = in->kvo[b] + in->lens[b];
    }
    int64_t nq = (int64_t)in->qo[in->batch] * in->heads * MB_DK, nk = (int64_t)in->kvo[in->batch] * MB_DK;
    in->q = malloc(sizeof(double) * (nq ? nq : 1));
    in->kv = malloc(sizeof(double) * (nk ? nk : 1));
    in->kv_scale = 0.02;
    in->sm_scale = 1.0 / sqrt((double)MB_DK);
    /* Q: the cast-free path (scale 1); KV: N(0,1) quantised with the per-tensor scale. */
    for (int64_t i = 0; i < nq; i++)
        in->q[i] = mb_fp8_to_f32(mb_f32_to_fp8((float)mb_rng_normal(seed, MB_STREAM_Q, (uint64_t)i), in->fnuz), in->fnuz);
    for (int64_t i = 0; i < nk; i++)
        in->kv[i] = mb_fp8_to_f32(mb_f32_to_fp8((float)(mb_rng_normal(seed, MB_STREAM_KV, (uint64_t)i) / in->kv_scale),
                                                in->fnuz), in->fnuz);
}

static double dot576(const double *a, const double *b)
{
    double s = 0.0;
    for (int d = 0; d < MB_DK; d++) s += a[d] * b[d];
    return s;
}

static const double *qrow(const replay_in_t *in, int b, int row)
{
    return in->q + ((int64_t)in->qo[b] * in->heads + row) * MB_DK;
}

/* Tokens row `row` (= q_index * heads + head) of batch b may see: all, or under causal masking its
 * q_index's position counted from the end of the sequence. */
static int row_seen(const replay_in_t *in, int b, int row, int causal)
{
    int len = in->lens[b];
    int seen = causal ? len - (in->q_len - 1 - row / in->heads) : len;
    return seen < 0 ? 0 : seen;
}

/* Direct softmax attention in natural-base double: out[total_q*heads][512]; zero rows see nothing. */
static void attend_direct(const replay_in_t *in, int causal, double *out)
{
    int rows = in->q_len * in->heads;
    double s[REPLAY_MAX_LEN];
    for (int b = 0; b < in->batch; b++)
        for (int r = 0; r < rows; r++) {
            double *o = out + ((int64_t)in->qo[b] * in->heads + r) * MB_DV;
            int seen = row_seen(in, b, r, causal);
            memset(o, 0, sizeof(double) * MB_DV);
            if (!seen) continue;
            double mx = -INFINITY, l = 0.0;
            for (int t = 0; t < seen; t++) {
                s[t] = dot576(qrow(in, b, r), in->kv + (int64_t)(in->kvo[b] + t) * MB_DK) * in->kv_scale * in->sm_scale;
                if (s[t] > mx) mx = s[t];
            }
            for (int t = 0; t < seen; t++) {
                double w = exp(s[t] - mx);
                l += w;
                const double *v = in->kv + (int64_t)(in->kvo[b] + t) * MB_DK;
                for (int d = 0; d < MB_DV; d++) o[d] += w * v[d];
            }
            for (int d = 0; d < MB_DV; d++) o[d] *= in->kv_scale / l;
        }
}

/* What decode_portable + combine compute from a plan, in double: each unit gives every one of its
 * rows a normalised partial o and lse = max + log2(sum 2^(x - max)) over the base-2 scores of the
 * tokens it holds and the row may see (-inf for none); direct units write the output, the reduce map
 * merges slots with weights 2^(lse - max). Rows never written stay NaN. Returns misuse count (a row
 * outside a slot, a slot index out of range). */
static int attend_replay(const replay_in_t *in, int causal, const mb_plan_t *pl, int rpu, double *out)
{
    int misuse = 0, rows = in->q_len * in->heads;
    int64_t nout = (int64_t)in->qo[in->batch] * in->heads * MB_DV;
    for (int64_t i = 0; i < nout; i++) out[i] = NAN;
    double *po = malloc(sizeof(double) * ((int64_t)pl->num_slots * rpu * MB_DV + 1));
    double *plse = malloc(sizeof(double) * ((int64_t)pl->num_slots * rpu + 1));
    for (int64_t i = 0; i < (int64_t)pl->num_slots * rpu; i++) plse[i] = NAN;
    double x[REPLAY_MAX_LEN], o[MB_DV];
    const double log2e = 1.4426950408889634;
    for (int c = 0; c < pl->num_ctas; c++)
        for (int u = pl->work_indptr[c]; u < pl->work_indptr[c + 1]; u++) {
            const mb_work_t *w = &pl->work[u];
            int b = w->batch;
            for (int r = w->row_begin; r < w->row_end; r++) {
                if (r - w->row_begin >= rpu || r >= rows) { misuse++; continue; }
                int end = in->kvo[b] + row_seen(in, b, r, causal);
                if (end > w->kv_end) end = w->kv_end;
                double mx = -INFINITY, l = 0.0, lse = -INFINITY;
                int n = end - w->kv_begin;
                for (int t = 0; t < n; t++) {
                    x[t] = dot576(qrow(in, b, r), in->kv + (int64_t)(w->kv_begin + t) * MB_DK) *
                           in->kv_scale * in->sm_scale * log2e;
                    if (x[t] > mx) mx = x[t];
                }
                memset(o, 0, sizeof o);
                for (int t = 0; t < n; t++) {
                    double p = exp2(x[t] - mx);
                    l += p;
                    const double *v = in->kv + (int64_t)(w->kv_begin + t) * MB_DK;
                    for (int d = 0; d < MB_DV; d++) o[d] += p * v[d];
                }
                double inv = l > 0.0 ? in->kv_scale / l : 0.0;
                if (l > 0.0) lse = mx + log2(l);
                if (w->partial < 0) {
                    double *dst = out + ((int64_t)in->qo[b] * in->heads + r) * MB_DV;
                    for (int d = 0; d < MB_DV; d++) dst[d] = o[d] * inv;
                } else if (w->partial >= pl->num_slots) {
                    misuse++;
                } else {
                    int64_t prow = (int64_t)w->partial * rpu + (r - w->row_begin);
                    for (int d = 0; d < MB_DV; d++) po[prow * MB_DV + d] = o[d] * inv;
                    plse[prow] = lse;
                }
            }
        }
    for (int g = 0; g < pl->num_reduce; g++) {
        const mb_reduce_t *e = &pl->reduce[g];
        if (e->slot_begin < 0 || e->slot_end > pl->num_slots) { misuse++; continue; }
        for (int r = 0; r < e->row_end - e->row_begin; r++) {
            double mx = -INFINITY, wsum = 0.0;
            for (int s = e->slot_begin; s < e->slot_end; s++) mx = fmax(mx, plse[(int64_t)s * rpu + r]);
            memset(o, 0, sizeof o);
            if (mx != -INFINITY)
                for (int s = e->slot_begin; s < e->slot_end; s++) {
                    int64_t prow = (int64_t)s * rpu + r;
                    double wt = exp2(plse[prow] - mx);
                    for (int d = 0; d < MB_DV; d++) o[d] += wt * po[prow * MB_DV + d];
                    wsum += wt;
                }
            double inv = wsum > 0.0 ? 1.0 / wsum : 0.0;
            double *dst = out + ((int64_t)in->qo[e->batch] * in->heads + e->row_begin + r) * MB_DV;
            for (int d = 0; d < MB_DV; d++) dst[d] = o[d] * inv;
        }
    }
    free(po);
    free(plse);
    return misuse;
}

/* Largest error relative to each row's largest magnitude; NaN (an unwritten row) gives +inf. */
static double max_row_rel_err(const double *got, const double *want, int64_t nrows)
{
    double worst = 0.0;
    for (int64_t r = 0; r < nrows; r++) {
        double scale = 0.0, err = 0.0;
        for (int d = 0; d < MB_DV; d++) scale = fmax(scale, fabs(want[r * MB_DV + d]));
        for (int d = 0; d < MB_DV; d++) {
            double e = fabs(got[r * MB_DV + d] - want[r * MB_DV + d]);
            if (!(e == e)) return INFINITY;
            err = fmax(err, e);
        }
        double rel = scale > 0.0 ? err / scale : err > 0.0 ? INFINITY : 0.0;
        worst = fmax(worst, rel);
    }
    return worst;
}

static void test_replay_matches_direct(void)
{
    static const struct { int batch, q_len, heads, splits, ctas; int32_t lens[5]; } cs[] = {
        { 1, 1, 1, 1, 1, { 1 } },
        { 1, 1, 1, 8, 7, { 100 } },
        { 1, 4, 20, 8, 132, { 100 } },
        { 2, 2, 9, 3, 7, { 17, 63 } },
        { 3, 3, 16, 5, 132, { 1, 17, 100 } },
        { 5, 1, 5, 2, 7, { 63, 1, 100, 17, 32 } },
        { 4, 4, 3, 8, 1, { 3, 17, 63, 100 } },
        { 2, 1, 17, 4, 132, { 100, 100 } },
        { 1, 2, 12, 7, 7, { 63 } },
    };
    rng_state = 0x853c49e6748fea9bull;
    int shapes = 0, evens = 0, extra = 96;
    for (int i = 0; i < (int)(sizeof cs / sizeof cs[0]) + extra; i++) {
        replay_in_t in = { 0 };
        int splits, ctas;
        if (i < (int)(sizeof cs / sizeof cs[0])) {
            in.batch = cs[i].batch; in.q_len = cs[i].q_len; in.heads = cs[i].heads;
            memcpy(in.lens, cs[i].lens, sizeof cs[i].lens);
            splits = cs[i].splits; ctas = cs[i].ctas;
        } else {
            static const int pick[] = { 1, 17, 63, 100, 2, 16, 33 };
            in.batch = rng_int(1, 5); in.q_len = rng_int(1, 4); in.heads = rng_int(1, 20);
            for (int b = 0; b < in.batch; b++) in.lens[b] = pick[rng_int(0, 6)];
            /* Half of them by auto for a kernel that states its unit cost: uneven cuts (build_even). */
            splits = rng_int(0, 1) ? rng_int(1, 8) : 0; ctas = rng_int(0, 1) ? 7 : 132;
        }
        in.fnuz = i & 1;
        for (int b = 0; b < in.batch; b++) CHECK(in.lens[b] <= REPLAY_MAX_LEN);
        make_inputs(&in, 1000 + (uint64_t)i);
        mb_plan_params_t p = { in.batch, in.q_len, in.heads, in.lens, splits, 16, 16, ctas, MB_FAULT_NONE, 0,
                               splits ? 0 : 12, 0 };
        mb_plan_t pl;
        CHECK(mb_plan_build(&p, &pl) == 0);
        evens += is_even_plan(&p, &pl);
        int64_t nrows = (int64_t)in.qo[in.batch] * in.heads;
        double *want = malloc(sizeof(double) * nrows * MB_DV), *got = malloc(sizeof(double) * nrows * MB_DV);
        for (int causal = 0; causal < 2; causal++) {
            attend_direct(&in, causal, want);
            CHECK(attend_replay(&in, causal, &pl, 16, got) == 0);
            double err = max_row_rel_err(got, want, nrows);
            CHECKF(err <= 1e-9, "shape %d causal %d: relative error %g", i, causal, err);
            if (err > 1e-9) describe(&p);
        }
        shapes++;
        free(want); free(got); free(in.q); free(in.kv);
        mb_plan_free(&pl);
    }
    CHECK(shapes == (int)(sizeof cs / sizeof cs[0]) + extra);
    CHECKF(evens >= 3, "only %d uneven plans replayed", evens);
}

static void test_replay_detects_split_shift(void)
{
    /* Non-causal so every row sees the doubled token; 100 tokens in 4 splits: a boundary exists. */
    replay_in_t in = { .batch = 2, .q_len = 2, .heads = 9, .fnuz = 0, .lens = { 100, 63 } };
    make_inputs(&in, 77);
    mb_plan_params_t p = { in.batch, in.q_len, in.heads, in.lens, 4, 16, 16, 7, MB_FAULT_SPLIT_SHIFT, 0, 0, 0 };
    mb_plan_t pl;
    CHECK(mb_plan_build(&p, &pl) == 0);
    int64_t nrows = (int64_t)in.qo[in.batch] * in.heads;
    double *want = malloc(sizeof(double) * nrows * MB_DV), *got = malloc(sizeof(double) * nrows * MB_DV);
    attend_direct(&in, 0, want);
    CHECK(attend_replay(&in, 0, &pl, 16, got) == 0);
    double err = max_row_rel_err(got, want, nrows);
    CHECKF(err > 1e-4, "faulty plan replays to within %g of the direct result", err);
    /* The same replay of the good plan agrees: the difference is the fault's. */
    mb_plan_free(&pl);
    p.fault = MB_FAULT_NONE;
    CHECK(mb_plan_build(&p, &pl) == 0);
    CHECK(attend_replay(&in, 0, &pl, 16, got) == 0);
    CHECK(max_row_rel_err(got, want, nrows) <= 1e-9);
    free(want); free(got); free(in.q); free(in.kv);
    mb_plan_free(&pl);
}

/* --- paged KV cache --- */

/* The plan is in logical tokens: a page size changes nothing in its partition. It only adds the
 * page-table offsets (page_indptr), those of the table mb_page_table_build makes. */
static void test_plan_same_for_any_page_size(void)
{
    int32_t lens[5] = { 17, 1000, 48, 4097, 1 };
    mb_plan_params_t p = { 5, 2, 32, lens, 0, 16, 16, 132, MB_FAULT_NONE, 0, 0, 0 };
    mb_plan_t flat, paged;
    CHECK(mb_plan_build(&p, &flat) == 0);
    CHECK(flat.page_indptr == NULL);
    static const int sizes[] = { 1, 16, 48, 64, 4096 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        p.page_size = sizes[i];
        CHECK(mb_plan_build(&p, &paged) == 0);
        CHECK(paged.num_units == flat.num_units && paged.num_ctas == flat.num_ctas && paged.total_kv == flat.total_kv);
        CHECK(!memcmp(paged.work, flat.work, sizeof(mb_work_t) * (size_t)flat.num_units));
        CHECK(!memcmp(paged.work_indptr, flat.work_indptr, sizeof(int32_t) * (size_t)(flat.num_ctas + 1)));
        int32_t table[17 + 1000 + 48 + 4097 + 1], indptr[6];   /* pages of 1 token at most */
        CHECK(mb_page_table_build(5, lens, sizes[i], 1, 7, table, indptr) == 0);
        CHECKF(paged.page_indptr && !memcmp(paged.page_indptr, indptr, sizeof indptr), "page size %d: page_indptr", sizes[i]);
        mb_plan_free(&paged);
    }
    mb_plan_free(&flat);
}

/* Cache row of logical token j of batch b, as kernels.h defines it (mb_kv_row). */
static int64_t page_row(const int32_t *table, const int32_t *indptr, int ps, int b, int64_t j)
{
    return (int64_t)table[indptr[b] + j / ps] * ps + j % ps;
}

/* Every token of every batch gets its own row inside the pool: the table is a bijection onto pages. */
static int layout_ok(int batch, const int32_t *lens, int ps, const int32_t *table, const int32_t *indptr)
{
    int64_t pages = indptr[batch], rows = pages * ps;
    char *used = calloc((size_t)rows, 1);
    int ok = used != NULL;
    for (int b = 0; ok && b < batch; b++) {
        ok &= indptr[b + 1] - indptr[b] == cdiv(lens[b], ps);
        for (int64_t j = 0; ok && j < lens[b]; j++) {
            int64_t r = page_row(table, indptr, ps, b, j);
            ok &= r >= 0 && r < rows && !used[r];
            if (ok) used[r] = 1;
        }
    }
    free(used);
    return ok;
}

static void test_page_table(void)
{
    int32_t lens[4] = { 17, 100, 48, 1 }, indptr[5], table[13], again[13], other[13];
    CHECK(mb_page_table_build(4, lens, 16, 0, 1, table, indptr) == 0);
    CHECK(indptr[0] == 0 && indptr[1] == 2 && indptr[2] == 9 && indptr[3] == 12 && indptr[4] == 13);
    /* contiguous: each batch's pages in order, one batch after another */
    for (int i = 0; i < 13; i++) CHECK(table[i] == i);
    CHECK(layout_ok(4, lens, 16, table, indptr));
    CHECK(page_row(table, indptr, 16, 1, 99) == 2 * 16 + 96 + 3);
    /* shuffled: a permutation, the same for the same seed, another for another seed */
    CHECK(mb_page_table_build(4, lens, 16, 1, 7, table, indptr) == 0);
    CHECK(mb_page_table_build(4, lens, 16, 1, 7, again, indptr) == 0);
    CHECK(mb_page_table_build(4, lens, 16, 1, 8, other, indptr) == 0);
    CHECK(!memcmp(table, again, sizeof table) && memcmp(table, other, sizeof table));
    CHECK(layout_ok(4, lens, 16, table, indptr) && layout_ok(4, lens, 16, other, indptr));
    /* a big pool is really scattered: few pages stay in place (expected 1) */
    enum { B = 64 };
    int32_t big_lens[B], big_indptr[B + 1];
    for (int b = 0; b < B; b++) big_lens[b] = 1 + 97 * b;
    int32_t *big = malloc(sizeof(int32_t) * 200000);
    if (!big) { CHECK(big); return; }
    static const int sizes[] = { 1, 16, 48, 64, 4096 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        CHECK(mb_page_table_build(B, big_lens, sizes[i], 1, 3, big, big_indptr) == 0);
        CHECKF(layout_ok(B, big_lens, sizes[i], big, big_indptr), "page size %d", sizes[i]);
        int fixed = 0;
        for (int p = 0; p < big_indptr[B]; p++) fixed += big[p] == p;
        CHECKF(big_indptr[B] < 100 || fixed < 10, "page size %d: %d of %d pages in place", sizes[i], fixed, big_indptr[B]);
    }
    free(big);
    int32_t neg[2] = { 5, -1 };
    CHECK(mb_page_table_build(4, lens, 0, 0, 1, table, indptr) == -1);
    CHECK(mb_page_table_build(0, lens, 16, 0, 1, table, indptr) == -1);
    CHECK(mb_page_table_build(2, neg, 16, 0, 1, table, indptr) == -1);
    CHECK(mb_page_table_build(4, NULL, 16, 0, 1, table, indptr) == -1);
}

/* The first units the sm90 decode takes in its launch's parameters (first_units.h) are the plan's: a
 * CTA's range of units, the first of them and its batch's page-table offset (0 for a flat cache), on a
 * plan of one unit a CTA and on an even plan of up to three, flat and paged; none without the host's
 * plan or past the parameters' CTAs. */
static int first_units_match(const mb_plan_t *pl, const mb_first_units_t *f)
{
    int bad = f->n != pl->num_ctas;
    for (int c = 0; c < pl->num_ctas && !bad; c++) {
        const mb_work_t *u = &pl->work[pl->work_indptr[c]];
        bad = f->w[c][0] != pl->work_indptr[c] || f->w[c][1] != pl->work_indptr[c + 1] ||
              memcmp(&f->u[c], u, sizeof f->u[c]) != 0 || f->page0[c] != (pl->page_indptr ? pl->page_indptr[u->batch] : 0);
    }
    return !bad;
}

static void test_first_units(void)
{
    static int32_t lens[200];
    static mb_first_units_t f;
    for (int b = 0; b < 200; b++) lens[b] = 8192;
    const mb_plan_params_t ps[2] = {
        { 4, 1, 32, lens, 16, 64, 64, 132, MB_FAULT_NONE, 0, 0, 0 },   /* 4 batches, 16 splits: 64 CTAs of one unit */
        { 200, 4, 16, lens, 0, 64, 64, 132, MB_FAULT_NONE, 0, 300, 0 } /* even plan: 1-3 units a CTA */
    };
    for (int i = 0; i < 4; i++) {
        mb_plan_params_t p = ps[i % 2];
        p.page_size = i < 2 ? 0 : 64;
        mb_plan_t pl;
        CHECK(mb_plan_build(&p, &pl) == 0);
        mb_decode_args_t a;
        memset(&a, 0, sizeof a);
        a.num_ctas = pl.num_ctas, a.num_units = pl.num_units, a.host_work = pl.work, a.host_work_indptr = pl.work_indptr;
        a.host_page_indptr = pl.page_indptr;
        mb_first_units_fill(&a, &f);
        CHECKF(first_units_match(&pl, &f), "plan %d: the first units are not the plan's", i);
        int multi = 0;
        for (int c = 0; c < pl.num_ctas; c++) multi |= pl.work_indptr[c + 1] - pl.work_indptr[c] > 1;
        CHECK(multi == (i % 2 == 1));   /* the second plan has CTAs whose first unit is not unit c */
        if (i >= 2) {   /* a planted offset is seen: one CTA's first unit given its batch's next one */
            f.page0[pl.num_ctas - 1]++;
            CHECK(!first_units_match(&pl, &f));
            f.page0[pl.num_ctas - 1]--;
        }
        f.u[pl.num_ctas - 1].kv_end--;   /* a planted difference is seen */
        CHECK(!first_units_match(&pl, &f));
        a.host_work = NULL;
        mb_first_units_fill(&a, &f);
        CHECK(f.n == 0);
        a.host_work = pl.work, a.num_ctas = MB_FIRST_UNITS_CTAS + 1;
        mb_first_units_fill(&a, &f);
        CHECK(f.n == 0);
        mb_plan_free(&pl);
    }
}

void suite_plan(void)
{
    RUN(test_plan_invariants_random);
    RUN(test_plan_corner_shapes);
    RUN(test_plan_invalid_params);
    RUN(test_plan_id);
    RUN(test_auto_splits);
    RUN(test_even_plan);
    RUN(test_checker_catches_mutations);
    RUN(test_split_shift_fails_coverage);
    RUN(test_replay_matches_direct);
    RUN(test_replay_detects_split_shift);
    RUN(test_plan_same_for_any_page_size);
    RUN(test_page_table);
    RUN(test_first_units);
}
