/* Workload configs: JSON files of defaults + cases, list values expanded into a grid. Knows nothing of
 * GPUs. Every error names the file, the JSON path, what was expected and what was found. */
#ifndef MB_CONFIG_H
#define MB_CONFIG_H

#include <stddef.h>
#include <stdint.h>

/* What a timed call finds in the L2 ("l2"): cold (the default) behind a write of twice its size, which
 * leaves the L2 full of that buffer's dirty lines for the call to write back; cold-clean behind the same
 * write read back, so that the call finds clean lines and pays for its own traffic alone; hot with no
 * flush. The values are the config's choice indices. */
typedef enum { MB_L2_COLD = 0, MB_L2_HOT = 1, MB_L2_COLD_CLEAN = 2 } mb_l2_t;
/* What a timed call finds in the SMs' instruction caches ("icache"): warm (the default), whatever the
 * previous timed call left there, or cold, emptied before every timed call (timing.c). Warm is how peers'
 * numbers are taken; cold is what a kernel meets inside a model's forward pass, where other kernels
 * ran in between, and its times do not move with where the driver placed the kernels' code (README,
 * "How it times"). */
typedef enum { MB_ICACHE_WARM = 0, MB_ICACHE_COLD = 1 } mb_icache_t;
typedef enum { MB_MODE_EAGER = 0, MB_MODE_GRAPH = 1 } mb_mode_t;

/* How Q reaches fp8: "cast" (saturating cast, scale 1: the cast-free path), "amax" (per-tensor amax
 * reduction, scale = amax / fp8_max, scaled cast: the reference recipe, as separate passes), "none"
 * (bf16 Q against fp8 KV; the decode converts KV instead). */
typedef enum { MB_Q_CAST = 0, MB_Q_AMAX = 1, MB_Q_NONE = 2 } mb_q_quant_t;

/* Order of a paged cache's physical pages: "shuffled" (a seeded permutation of the pool, as after
 * allocation churn in a serving engine; the default when paged) or "contiguous" (each batch's pages
 * in order, one batch after another: the flat layout cut into pages). */
typedef enum { MB_PAGES_SHUFFLED = 0, MB_PAGES_CONTIGUOUS = 1 } mb_page_order_t;

/* num_kv_splits "tuned": the best count a sweep recorded for the shape (tuning file), else "auto". */
#define MB_SPLITS_TUNED (-1)

/* Per-case limits; the config parser enforces them, the rest of the tool relies on them. */
enum {
    MB_MAX_BATCH = 65536, MB_MAX_Q_LEN = 8, MB_MAX_HEADS = 128,
    MB_MAX_KV_LEN = 1048576, MB_MAX_SPLITS = 256, MB_MAX_PAGE_SIZE = 4096
};

/* A split count read from a JSON number that a config could ask for: an integer in [1, MB_MAX_SPLITS]
 * (NaN, 2.5 or 1e300 are not; the range check comes first, so the cast is defined). */
static inline int mb_splits_valid(double v) { return v >= 1 && v <= MB_MAX_SPLITS && v == (double)(int)v; }

typedef struct mb_case {
    char name[128];
    const char *file;          /* config file it came from (owned by mb_config_t) */
    int index;                 /* position of its entry in "cases" */
    int batch, q_len, heads;
    int32_t *kv_lens;          /* [batch], owned */
    char kv_desc[64];          /* how the lengths were given: "1024", "uniform[1,4096]", "list" */
    int causal;                /* 1: query i of q_len sees kv_len - (q_len - 1 - i) tokens */
    mb_q_quant_t q_quant;
    int plan_rebuild;          /* "plan": "rebuild": build and upload the plan on every call (eager only) */
    int page_size;             /* KV tokens a page; 0: a flat cache (the default) */
    mb_page_order_t page_order;   /* meaningful only when page_size > 0 */
    int splits;                /* num_kv_splits: 0 = "auto", MB_SPLITS_TUNED, else a fixed count */
    mb_mode_t mode;
    mb_l2_t l2;                /* what a timed call finds in the L2 (timing.c) */
    mb_icache_t icache;        /* ... and in the SMs' instruction caches */
    uint64_t seed;
    double q_std, kv_std;
    int warmup, min_runs, max_runs;
    double target_rse, max_seconds;   /* the stop rule, per placement */
    int placements;            /* workspaces the case is timed on, each with its own buffers and graph (runner.c) */
    double atol, rtol, max_rel_l2;   /* check tolerances (kernel error vs the fp8-input reference) */
} mb_case_t;

typedef struct mb_config {
    char *path;
    char *text;                /* the file as read, for the report; with --set, as run (config_set.c) */
    mb_case_t *cases;
    int n_cases;
    char *sets;                /* "--set K=V --set K=V" as given, or NULL */
} mb_config_t;

/* Both return 0 on success, else 2 (the usage/config exit code) with a one-line message in err; cfg
 * is then left empty (freeing it is still safe). */
int mb_config_load(const char *path, mb_config_t *cfg, char *err, size_t errlen);
int mb_config_parse(const char *path, const char *text, mb_config_t *cfg, char *err, size_t errlen);
void mb_config_free(mb_config_t *cfg);
/* mb_config_load with --set KEY=VALUE overrides (config_set.c): each VALUE (JSON, else taken as a
 * string) is checked as KEY's value, then holds for every case of the file, replacing "defaults".KEY
 * and the key in every case entry. A bad override is exit 2 naming the argument. */
int mb_config_load_set(const char *path, const char *const *sets, int n_sets, mb_config_t *cfg, char *err,
                       size_t errlen);
/* Keeps the cases whose name (e.g. "b128-q4-kv8192-h16/mode=graph") matches `pattern`, a POSIX
 * extended regular expression searched anywhere in the name ("b128|b4-q1" keeps either), in their
 * order, and frees the rest. Returns how many it kept, or -1 with a message in err for a pattern that
 * does not compile. A NULL pattern keeps every case. (config_filter.c) */
int mb_config_filter(mb_config_t *cfg, const char *pattern, char *err, size_t errlen);

const char *mb_mode_name(mb_mode_t m);
const char *mb_l2_name(mb_l2_t l);
const char *mb_icache_name(mb_icache_t i);
const char *mb_q_quant_name(mb_q_quant_t q);
const char *mb_page_order_name(mb_page_order_t o);
/* num_kv_splits as a config writes it: "auto", "tuned" or the count. */
void mb_splits_request_text(int splits, char *buf, size_t n);
/* Sum of kv_lens: the KV tokens a case reads, for sizing (its query rows are batch * q_len). */
int64_t mb_case_total_kv(const mb_case_t *c);
/* Pages of a paged case's pool, sum over batches of ceil(kv_len / page_size); 0 for a flat cache. */
int64_t mb_case_pages(const mb_case_t *c);
/* Rows the KV cache holds: the tokens of a flat cache, whole pages of a paged one (its last page of
 * each batch is padded). */
int64_t mb_case_cache_rows(const mb_case_t *c);

#endif
