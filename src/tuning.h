/* Tuning files (results/tuning/<device>.json): for each shape a sweep measured, the split count that
 * was fastest and the times behind it. "num_kv_splits": "tuned" reads them. */
#ifndef MB_TUNING_H
#define MB_TUNING_H

#include <stddef.h>
#include "config.h"

#define MB_TUNING_SCHEMA "mla-bench/tuning/1"

typedef struct mb_tuning {
    void *root;                /* the parsed file (cJSON), an empty one when the file does not exist */
    char path[512];
} mb_tuning_t;

/* A missing file is an empty table (0); an unreadable or malformed one is exit 2 with the path in err. */
int mb_tuning_load(const char *path, mb_tuning_t *t, char *err, size_t errlen);
/* Best split count recorded for key; 0 when key has no entry; -1 with err naming the file and the field
 * when its entry is malformed (best_splits not an integer in [1, MB_MAX_SPLITS]). */
int mb_tuning_best(const mb_tuning_t *t, const char *key, char *err, size_t errlen);
/* Records a swept shape: splits[i] took median_us[i]; auto chose auto_splits in auto_us. */
int mb_tuning_set(mb_tuning_t *t, const char *key, const char *device, int best, const int *splits,
                  const double *median_us, int n, int auto_splits, double auto_us);
/* Written atomically, creating the directory. 0, or -1 with err. */
int mb_tuning_save(mb_tuning_t *t, char *err, size_t errlen);
void mb_tuning_free(mb_tuning_t *t);

/* Shape key: kernel/b{batch}-q{q_len}-h{heads}-kv{len or hash of the lengths}-{causal|full}, and
 * -page{size}-{order} for a paged cache. */
void mb_tuning_key(const mb_case_t *c, const char *kernel, char *buf, size_t n);
/* results/tuning/<device name, lower case, other characters as '-'>.json */
void mb_tuning_default_path(const char *device, char *buf, size_t n);

#endif
