/* The work-partition plan (split-KV units spread over persistent CTAs + the reduce map), built on the
 * host in O(batch + units), deterministic. Pure host code: tests replay it without a GPU. */
#ifndef MB_PLAN_H
#define MB_PLAN_H

#include <stdint.h>
#include "../kernels/kernels.h"

typedef struct mb_plan_params {
    int batch, q_len, heads;
    const int32_t *kv_lens;    /* [batch] */
    int splits;                /* requested num_kv_splits; 0 = auto */
    int rows_per_unit;         /* kernel property: most rows one unit holds */
    int kv_granularity;        /* kernel property: split boundaries are multiples of this */
    int max_ctas;              /* grid the GPU runs at once: SMs x resident CTAs per SM */
    int fault;                 /* MB_FAULT_SPLIT_SHIFT: move the first split boundary by one token */
    int page_size;             /* KV tokens a page, 0: flat cache. Units are in logical tokens, so the
                                * partition is the same for any page size; the plan's page_indptr is
                                * not, and a plan is built for one cache layout: part of the cache key. */
    int unit_overhead;         /* kernel property: what one more unit costs a CTA, in KV tokens of its
                                * time (mb_kernel_info_t.unit_overhead); > 0: "auto" costs plans by the
                                * kernel's model and may cut the batches unevenly (plan.c, build_even);
                                * 0: equal splits by the plan's generic model */
    int dram_ctas;             /* kernel property, with unit_overhead: the CTAs that already saturate
                                * DRAM (a plan is no faster than its work shared by that many), 0: none */
} mb_plan_params_t;

typedef struct mb_plan {
    int num_units, num_ctas, num_slots, num_reduce;
    int splits_max;            /* most splits any batch got */
    int even;                  /* auto's even plan (batches cut unevenly, plan.c build_even), else equal splits */
    int64_t total_kv;
    int total_q;
    int32_t *qo_indptr, *kv_indptr;   /* [batch + 1] */
    int32_t *page_indptr;             /* [batch + 1] page-table offsets of a paged cache (those of
                                       * mb_page_table_build), NULL for a flat one: the sm90 decode takes
                                       * each CTA's first unit's in its launch (first_units.h) */
    mb_work_t *work;                  /* [num_units], CTA-major */
    int32_t *work_indptr;             /* [num_ctas + 1] */
    mb_reduce_t *reduce;              /* [num_reduce] */
    uint64_t id;               /* fingerprint of the partition (units, their CTAs, the reduce map): two
                                * plans with one id do the same work the same way, so their times
                                * differ by noise alone (a sweep point asking more splits than a batch
                                * has tiles gets an earlier point's plan) */
} mb_plan_t;

/* Cost of a unit in "tokens": its KV length plus a fixed cost for loading Q and writing rows out. */
#define MB_UNIT_OVERHEAD 32

/* The rows of a full unit: q_len x heads, at most rows_per_unit (the row count a kernel's costs are
 * stated for: mb_kernel_info_t.unit_overhead, dram_ctas). */
int mb_plan_unit_rows(const mb_plan_params_t *p);
/* The "auto" split count (README, "Split policy"). */
int mb_auto_splits(const mb_plan_params_t *p);
/* 0, or -1 for invalid parameters / out of memory (nothing allocated then). */
int mb_plan_build(const mb_plan_params_t *p, mb_plan_t *out);
void mb_plan_free(mb_plan_t *plan);
int64_t mb_unit_cost(const mb_work_t *u);
/* A unit's cost in auto's even plan (plan.c, build_even), which balances its CTAs by this. */
int64_t mb_even_unit_cost(const mb_plan_params_t *p, const mb_work_t *u);

/* A paged cache's page table (mb_pages_t in kernels.h): batch b owns ceil(kv_lens[b] / page_size)
 * logical pages, table[page_indptr[b] .. page_indptr[b + 1]), each naming a physical page of one
 * pool of page_indptr[batch] pages. The physical pages are 0, 1, ... in order ("contiguous": the
 * flat layout cut into pages, each batch's last page padded) or a Fisher-Yates permutation drawn
 * from seed (mb_rng_u64 stream MB_STREAM_PAGES; "shuffled", as after allocation churn). table needs
 * room for every page (mb_case_pages), page_indptr for batch + 1. 0, or -1 for invalid parameters. */
int mb_page_table_build(int batch, const int32_t *kv_lens, int page_size, int shuffled, uint64_t seed,
                        int32_t *table, int32_t *page_indptr);

#endif
