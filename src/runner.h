/* What `run` and `sweep` share: the opened GPU and chosen kernel, the plan cache, the tuning file, and
 * the life of one case (inputs generated once, reference computed once, then any number of split
 * settings each planned, checked and timed). */
#ifndef MB_RUNNER_H
#define MB_RUNNER_H

#include "path.h"
#include "result.h"
#include "stop.h"
#include "tuning.h"

typedef struct mb_runner {
    const char *kernel;        /* auto | portable | sm90 */
    const char *dump_dir;      /* --dump, or NULL */
    const char *tuning_path;   /* --tuning, or NULL for the device's default file */
    const char *filter;        /* --filter: only the cases whose names match (mb_config_filter) */
    mb_optlist_t sets;         /* --set KEY=VALUE, for every config (mb_config_load_set) */
    int quiet, fault;
    mb_gpu_t g;
    mb_env_t env;
    mb_kernel_info_t kinfo;
    int max_ctas;              /* plan workers the GPU holds at once */
    mb_kernel_info_t portable; /* for cases the chosen kernel cannot run (q_quant "none" on sm90) */
    int max_ctas_portable;
    mb_plan_cache_t plans;
    mb_tuning_t tuning;
    int tuning_loaded, tuned_misses;
} mb_runner_t;

/* --kernel's value names a kernel the tool has: 0, or MB_EXIT_USAGE with a message naming `cmd`. */
int mb_runner_check_kernel(const mb_runner_t *r, const char *cmd);

/* Opens the GPU, picks the kernel, measures copy bandwidth and launch floor. 0 or an exit code (the
 * message already printed). */
int mb_runner_open(mb_runner_t *r);
void mb_runner_close(mb_runner_t *r);

/* The split request a case stands for, "tuned" resolved through the tuning file (a shape not in it
 * falls back to auto). *how: 'a' auto, 't' tuned, 0 fixed. -1 when the tuning file is unusable. */
int mb_runner_splits(mb_runner_t *r, const mb_case_t *c, char *how);
/* Builds (and caches) the plan for c at `splits` and checks the case fits in free device memory
 * before anything is allocated. 0 or an exit code (message printed). */
int mb_runner_fit(mb_runner_t *r, const mb_case_t *c, int splits);

typedef struct mb_case_state {
    mb_ws_t ws;
    int max_ctas;              /* of the kernel this case runs on */
    float *ref, *src;          /* host references, computed on the first evaluation */
} mb_case_state_t;

int mb_case_open(mb_runner_t *r, const mb_case_t *c, mb_case_state_t *st, char *err, size_t errlen);
/* One split setting: plan, bind, poisoned call, check, (dump), time. Fills res; 0, 2 or 4. */
int mb_case_eval(mb_runner_t *r, mb_case_state_t *st, int splits, char how, mb_case_result_t *res,
                 char *err, size_t errlen);
void mb_case_close(mb_case_state_t *st);

/* The life of a GPU command over configs paths[0..n): every config loaded and validated before the GPU
 * is touched (a typo in the last file fails in seconds), the runner opened, Ctrl-C caught, each config
 * handed to per_config, everything closed. Returns the worst exit code (130 if interrupted). */
typedef int (*mb_per_config_fn)(mb_runner_t *r, const mb_config_t *cfg, const void *opts);
int mb_runner_main(mb_runner_t *r, char **paths, int n, mb_per_config_fn per_config, const void *opts);

/* "[i/n] name (mode), the last case's median, the time left" on stderr when it is a terminal and
 * --quiet is off; nothing in CI logs. last_us <= 0: no case finished yet. */
void mb_progress(const mb_runner_t *r, int i, int n, const char *name, const char *mode, double last_us,
                 double eta_s);
/* DIR/STEM from a config path: "configs/mixed-mla.json" -> "mixed-mla". */
const char *mb_stem_of(const char *path, char *buf, size_t n);

#endif
