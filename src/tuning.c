#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cJSON.h>
#include "jsonio.h"
#include "numeric.h"
#include "report.h"
#include "tuning.h"

static cJSON *empty_root(void)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", MB_TUNING_SCHEMA);
    cJSON_AddObjectToObject(root, "entries");
    return root;
}

int mb_tuning_load(const char *path, mb_tuning_t *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    errno = 0;
    char *text = mb_read_text(path, err, errlen);
    if (!text) {
        if (errno == ENOENT) { t->root = empty_root(); return 0; }   /* no sweep yet: an empty table */
        return 2;
    }
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root) {
        snprintf(err, errlen, "%s: not valid JSON", path);
        return 2;
    }
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(root, "entries");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, MB_TUNING_SCHEMA) || !cJSON_IsObject(entries)) {
        snprintf(err, errlen, "%s: not a tuning file: expected schema \"%s\" and an \"entries\" object", path,
                 MB_TUNING_SCHEMA);
        cJSON_Delete(root);
        return 2;
    }
    t->root = root;
    return 0;
}

int mb_tuning_best(const mb_tuning_t *t, const char *key, char *err, size_t errlen)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(t->root, "entries"), key);
    if (!e) return 0;
    /* A hand-edited entry must not reach the plan as a count no config could ask for (or a truncated
     * 2.5): the same range a config's num_kv_splits has. */
    const cJSON *b = cJSON_IsObject(e) ? cJSON_GetObjectItemCaseSensitive(e, "best_splits") : NULL;
    const double v = cJSON_IsNumber(b) ? b->valuedouble : NAN;
    if (!mb_splits_valid(v)) {
        char *got = b ? cJSON_PrintUnformatted(b) : NULL;
        snprintf(err, errlen, "%s: entries[\"%s\"].best_splits: expected integer in [1, %d], got %s", t->path, key,
                 MB_MAX_SPLITS, got ? got : cJSON_IsObject(e) ? "nothing" : "an entry that is not an object");
        free(got);
        return -1;
    }
    return (int)v;
}

int mb_tuning_set(mb_tuning_t *t, const char *key, const char *device, int best, const int *splits,
                  const double *median_us, int n, int auto_splits, double auto_us)
{
    cJSON *entries = cJSON_GetObjectItemCaseSensitive(t->root, "entries");
    cJSON *e = cJSON_CreateObject(), *times = cJSON_CreateObject();
    if (!entries || !e || !times) { cJSON_Delete(e); cJSON_Delete(times); return -1; }
    cJSON_DeleteItemFromObjectCaseSensitive(t->root, "device");
    cJSON_AddStringToObject(t->root, "device", device);
    cJSON_AddNumberToObject(e, "best_splits", best);
    cJSON_AddNumberToObject(e, "auto_splits", auto_splits);
    cJSON_AddNumberToObject(e, "auto_median_us", auto_us);
    for (int i = 0; i < n; i++) {
        char k[16];
        snprintf(k, sizeof k, "%d", splits[i]);
        cJSON_AddNumberToObject(times, k, median_us[i]);
    }
    cJSON_AddItemToObject(e, "median_us", times);
    cJSON_DeleteItemFromObjectCaseSensitive(entries, key);
    cJSON_AddItemToObject(entries, key, e);
    return 0;
}

static int mkdirs(const char *path)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) && errno != EEXIST) return -1;
        *p = '/';
    }
    return 0;
}

int mb_tuning_save(mb_tuning_t *t, char *err, size_t errlen)
{
    if (mkdirs(t->path)) { snprintf(err, errlen, "%s: cannot create its directory: %s", t->path, strerror(errno)); return -1; }
    return jb_write(NULL, t->root, t->path, err, errlen);
}

void mb_tuning_free(mb_tuning_t *t)
{
    cJSON_Delete(t->root);
    memset(t, 0, sizeof *t);
}

void mb_tuning_key(const mb_case_t *c, const char *kernel, char *buf, size_t n)
{
    int same = 1;
    for (int b = 0; b < c->batch; b++) same &= c->kv_lens[b] == c->kv_lens[0];
    uint64_t h = mb_fnv1a_i32(MB_FNV_OFFSET, c->kv_lens, c->batch);   /* for ragged batches */
    int k;
    if (same) k = snprintf(buf, n, "%s/b%d-q%d-h%d-kv%d-%s", kernel, c->batch, c->q_len, c->heads, c->kv_lens[0],
                           c->causal ? "causal" : "full");
    else k = snprintf(buf, n, "%s/b%d-q%d-h%d-kv%016llx-%s", kernel, c->batch, c->q_len, c->heads,
                      (unsigned long long)h, c->causal ? "causal" : "full");
    /* a paged cache is another workload (gathered loads); flat keys stay as they were */
    if (c->page_size > 0 && k >= 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, "-page%d-%s", c->page_size, mb_page_order_name(c->page_order));
}

void mb_tuning_default_path(const char *device, char *buf, size_t n)
{
    char slug[128];
    size_t k = 0;
    for (const char *s = device; *s && k + 1 < sizeof slug; s++)
        slug[k++] = isalnum((unsigned char)*s) ? (char)tolower((unsigned char)*s) : '-';
    slug[k] = '\0';
    snprintf(buf, n, "results/tuning/%s.json", k ? slug : "unknown");
}
