/* The C ABI between the host and the kernels: plain structs and extern "C" launchers. Every launcher
 * returns the launch's error (hipGetLastError after the launch), so the host checks each one. */
#ifndef MB_KERNELS_H
#define MB_KERNELS_H

#include <stdint.h>
#include "../src/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One work unit of the split-KV plan: rows [row_begin, row_end) of batch `batch` (row = q_index * heads
 * + head), over KV tokens [kv_begin, kv_end) (absolute indices into the cache). partial < 0: the unit
 * covers the whole batch and writes the output; else it writes partial rows into slot `partial`. */
typedef struct mb_work {
    int32_t batch, row_begin, row_end, kv_begin, kv_end, partial;
    /* The batch's offsets, copied into the unit so that a kernel starting a unit waits for one load
     * (the unit) and not a second one behind it (indptr arrays indexed by its batch): with the L2
     * cold, each is a DRAM round trip in front of the unit's first copies. */
    int32_t q_row0;              /* the global query row of row_begin: qo_indptr[batch] * heads + row_begin */
    int32_t kv_start, kv_len;    /* kv_indptr[batch] and the batch's kv length */
} mb_work_t;

/* One combine job: rows [row_begin, row_end) of batch `batch` are merged from partial slots
 * [slot_begin, slot_end), in KV order. */
typedef struct mb_reduce {
    int32_t batch, row_begin, row_end, slot_begin, slot_end;
} mb_reduce_t;

/* A paged KV cache: batch b's logical token j (j = t - kv_indptr[b] for a logical index t) lives in
 * cache row table[page_indptr[b] + j / page_size] * page_size + j % page_size. table == NULL: the
 * cache is flat and logical index t is row t. */
typedef struct mb_pages {
    const int32_t *table;        /* [page_indptr[batch]] physical page numbers */
    const int32_t *page_indptr;  /* [batch + 1] */
    int page_size;
} mb_pages_t;

/* A kernel's own description of the KV cache, made once per workspace (mb_kernel_info_t.describe_kv):
 * for sm90 whether its tiles are runs of the cache, and if so the TMA unit's tensor map of it (a
 * CUtensorMap, opaque here), 64-byte aligned as the unit requires: the sm90 kernel hands it the one
 * inside its (__grid_constant__) arguments. */
#ifdef __cplusplus
#define MB_ALIGN64 alignas(64)
#else
#define MB_ALIGN64 _Alignas(64)
#endif
typedef struct mb_kv_map {
    MB_ALIGN64 uint64_t desc[16];
    int whole_tile;              /* tiles by one TMA box each (else cp.async through the page table) */
} mb_kv_map_t;

typedef struct mb_decode_args {
    const uint8_t *q;            /* fp8 [total_q][heads][576] */
    const uint16_t *q_bf16;      /* non-NULL: q_quant "none", Q read as bf16 from here (q unused) */
    const uint16_t *q_src_cast;  /* non-NULL: the decode does the cast-free cast of this bf16 Q itself (q unused) */
    const uint8_t *kv;           /* fp8 [total_kv][576] */
    const float *kv_scale;       /* device scalar: per-tensor KV dequantisation scale */
    const float *q_scale;        /* device scalar: 1 on the cast-free path, amax / fp8_max for "amax" */
    float sm_scale;              /* 1/sqrt(576) */
    const int32_t *qo_indptr;    /* [batch + 1] */
    const int32_t *kv_indptr;    /* [batch + 1], logical token offsets (units' kv ranges are in these) */
    mb_pages_t pages;            /* where each logical token lives in the cache (mb_kv_row) */
    const mb_work_t *work;       /* [units] */
    const int32_t *work_indptr;  /* [ctas + 1] */
    int num_ctas, num_units;
    int heads, q_len, causal;
    int rows_per_unit;           /* row stride of a partial slot */
    void *partial_o;             /* [slots][rows_per_unit][512], normalised: fp32, or f16 for a kernel
                                  * whose info says partials_f16 */
    float *partial_lse;          /* [slots][rows_per_unit], log2(sum exp2) + max, -inf if empty */
    uint16_t *out;               /* bf16 [total_q][heads][512] */
    int fault;                   /* MB_FAULT_*: planted bugs for negative tests, 0 in normal runs */
    mb_kv_map_t kv_map;          /* from describe_kv, for kernels that have one */
    int kv_evict_first;          /* the plan writes partials: the cache's lines, read once a call, may
                                  * leave the L2 first, so that the partials stay for the combine */
    /* The host's copies of work and work_indptr (the plan's own arrays), for a kernel that hands each
     * CTA its first unit in its launch parameters (sm90); NULL where the caller has none. */
    const mb_work_t *host_work;
    const int32_t *host_work_indptr;
    /* The scales' values where they hold for the whole workspace: the KV cache's (read back once after
     * it was made) and Q's 1 on the cast-free path; scales_known 0: read kv_scale and q_scale instead.
     * A kernel that takes them by value has no load in front of its first unit (sm90, v115b). */
    float kv_scale_value, q_scale_value;
    int scales_known;
    /* The plan's page_indptr (plan.h) for a paged cache, else NULL: first_units.h hands each CTA its
     * first unit's entry. Last, so that the fields before keep their places in the parameters. */
    const int32_t *host_page_indptr;
} mb_decode_args_t;

typedef struct mb_combine_args {
    const mb_reduce_t *reduce;
    int num_reduce, rows_per_unit, heads;
    int splits_max;              /* most partial slots a reduce entry has: sizes the combine's batches of loads */
    const int32_t *qo_indptr;
    const void *partial_o;       /* fp32, or f16 (partials_f16) */
    const float *partial_lse;
    uint16_t *out;
    int partials_f16;
} mb_combine_args_t;

/* Planted bugs, selected only by tests (mla-bench run --inject-fault), each one a plausible real bug. */
enum {
    MB_FAULT_NONE = 0,
    MB_FAULT_DROP_TOKEN = 1,   /* decode skips the last KV token of every unit that ends a batch */
    MB_FAULT_WRONG_SCALE = 2,  /* decode ignores the KV scale (uses 1.0) */
    MB_FAULT_SPLIT_SHIFT = 3,  /* host side: the first split boundary moves one token (plan.c) */
    MB_FAULT_EXTRA_PASS = 4    /* a slowdown, not a bug: one extra read of the whole KV cache a call */
};

typedef struct mb_kernel_info {
    const char *name;
    hipError_t (*launch)(const mb_decode_args_t *a, hipStream_t s);
    int rows_per_unit;           /* most query rows (q_index x head) one unit holds */
    int kv_granularity;          /* split boundaries fall on multiples of this many tokens */
    int fp8_fnuz;                /* which fp8 flavour this build's kernels read and write */
    int fuses_q_cast;            /* the decode casts bf16 Q itself (q_src_cast): no separate cast launch */
    const char *tuning_id;       /* names the kernel's design in tuning-file keys: a rewrite gets a new id, so
                                  * splits tuned for an older design are never applied to it */
    int reads_bf16_q;            /* has a path for q_quant "none" (q_bf16); cases of a kernel without one run
                                  * on the portable kernel */
    /* NULL, or describes the cache (`rows` rows of 576 bytes at kv; page_size 0 = flat) into *map once per
     * workspace: 0, or an error code of the driver's. */
    int (*describe_kv)(const uint8_t *kv, int64_t rows, int page_size, mb_kv_map_t *map);
    /* NULL, or what one more unit of `rows` rows costs a CTA, in KV tokens of its time (measured; lets
     * the plan's "auto" cut batches unevenly: mb_plan_params_t.unit_overhead). */
    int (*unit_overhead)(int rows);
    /* NULL, or how many CTAs already saturate DRAM with units of `rows` rows (0: the kernel is not bound
     * by DRAM there): mb_plan_params_t.dram_ctas. */
    int (*dram_ctas)(int rows);
    /* NULL, or whether units of `rows` rows (on a cache whose tiles are whole runs, whole_tile) write
     * their partial rows in f16 rather than fp32: half the bytes the decode writes and the combine
     * reads; f16's rounding (2^-11) is a quarter of the bf16 output's. */
    int (*partials_f16)(int rows, int whole_tile);
} mb_kernel_info_t;

mb_kernel_info_t mb_portable_info(void);
/* Resident CTAs per SM of the decode kernel on this GPU (sizes the persistent grid). */
hipError_t mb_portable_occupancy(int *ctas_per_sm);

#if MB_HAVE_SM90
/* Tensor-core decode for Hopper (wgmma; sm_90a code). A plan worker is one CTA: *workers_per_sm of them
 * fit on an SM; 0 when this GPU is not Hopper. */
mb_kernel_info_t mb_sm90_info(void);
hipError_t mb_sm90_prepare(int *workers_per_sm);
/* The registers a thread the 64-row walker got at launch (*have) and the count its setmaxnreg budgets
 * were checked against at compile time (*need): with fewer, the multipliers' increase waits forever
 * (a hang, not an error). */
hipError_t mb_sm90_launch_regs(int *have, int *need);
hipError_t mb_launch_decode_sm90(const mb_decode_args_t *a, hipStream_t s);
#endif

/* --- data generation (not timed) --- */
hipError_t mb_launch_gen_bf16(uint16_t *dst, int64_t n, uint64_t seed, uint64_t stream, float std,
                              hipStream_t s);
/* amax of |src| into *amax (device, must be zeroed first). */
hipError_t mb_launch_amax_bf16(const uint16_t *src, int64_t n, float *amax, hipStream_t s);
/* scale = amax / fp8_max (1 if amax == 0); dst = sat_cast(src / scale). Also the "amax" Q recipe. */
hipError_t mb_launch_quant_kv(const uint16_t *src, int64_t n, const float *amax, float *scale,
                              uint8_t *dst, hipStream_t s);

/* --- the measured path --- */
/* Cast-free Q quantisation: dst = sat_cast(src * 1), no amax pass. */
hipError_t mb_launch_qcast(const uint16_t *src, uint8_t *dst, int64_t n, hipStream_t s);
hipError_t mb_launch_decode_portable(const mb_decode_args_t *a, hipStream_t s);
hipError_t mb_launch_combine(const mb_combine_args_t *a, hipStream_t s);

/* --- checking --- */
/* Naive fp32 reference, one block per (row, head). Q and KV come either as fp8 codes (dequantised
 * with q_scale and *kv_scale) or as bf16 sources (q_fp8 / kv_fp8 NULL, scales ignored). */
typedef struct mb_ref_args {
    const uint8_t *q_fp8; const uint16_t *q_bf16;
    const uint8_t *kv_fp8; const uint16_t *kv_bf16;
    const float *q_scale, *kv_scale; float sm_scale;
    const int32_t *qo_indptr, *kv_indptr;
    mb_pages_t pages;
    int batch, total_q, q_len, heads, causal;
    float *out;                  /* fp32 [total_q][heads][512] */
} mb_ref_args_t;
hipError_t mb_launch_reference(const mb_ref_args_t *a, hipStream_t s);

/* --- measurement helpers --- */
/* Busy-waits `cycles` SM clock cycles on the GPU, so the start event is recorded only after the host
 * has queued the measured work (nvbench's trick): the events then time GPU work, not submission. */
hipError_t mb_launch_spin(uint64_t cycles, hipStream_t s);
hipError_t mb_launch_empty(hipStream_t s);
/* Stores {global timer, SM cycle counter} of multiprocessor 0 at out[0], out[1] (nvbench's way to the SM
 * clock: queued before a call's start event and after its end event, the differences are the clock
 * across the call). `blocks` one-thread blocks, the SM count, so that one of them runs on SM 0; where
 * none does, out keeps what it held (zero it first). */
hipError_t mb_launch_sm_stamp(uint64_t *out, int blocks, hipStream_t s);
/* Empties every SM's instruction caches ("icache": "cold"); sink is never written in practice. */
hipError_t mb_launch_icache_evict(int sm_count, uint32_t *sink, hipStream_t s);
/* Reads n bytes (n a multiple of 16) and folds them into *sink: the planted slowdown of the A/B test. */
hipError_t mb_launch_read_all(const uint8_t *p, int64_t n, uint32_t *sink, hipStream_t s);
/* The same read by a grid of `grid` blocks of `block` threads (the read-once floor, src/floor.h). */
hipError_t mb_launch_read_once(const uint8_t *p, int64_t n, int grid, int block, uint32_t *sink, hipStream_t s);

#ifdef __cplusplus
}
#endif
#endif
