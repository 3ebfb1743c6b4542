/* Workload configs (config.h). Each value is checked where it is written (in "defaults" or in a case
 * entry), so an error names the exact JSON path to fix; a case entry is then merged over the defaults
 * and over the built-ins, and expanded into the cartesian product of its grid keys. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_set.h"
#include "defaults.h"
#include "numeric.h"

enum {
    MAX_CASES = 100000,        /* after grid expansion, over the whole file */
    MAX_NAME_LEN = 100,        /* as written; grid suffixes may add up to sizeof(name) - 1 */
    SHOW_LEN = 40,             /* how much of an offending value a message quotes */
    /* JSON path buffers, each long enough for the one it extends plus what it appends, so no path
     * is ever cut short: a prefix ("cases[2147483647]"), + ".num_kv_splits", + "[2147483647]", + a
     * part inside one value (".uniform", "[i]"), + "[i]" */
    PREFIX_LEN = 24,
    KEY_PATH_LEN = PREFIX_LEN + 24,
    ELEM_PATH_LEN = KEY_PATH_LEN + 16,
    SUB_PATH_LEN = ELEM_PATH_LEN + 16,
    SUB_ELEM_PATH_LEN = SUB_PATH_LEN + 16,
    WHAT_LEN = 96
};

/* Query rows are int32 on the GPU; the per-field limits already keep every case within that. */
_Static_assert((long long)MB_MAX_BATCH * MB_MAX_Q_LEN * MB_MAX_HEADS <= INT32_MAX,
               "batch * q_len * heads must fit in int32");

/* Case fields. The grid keys come first, in expansion order: the first is the outermost loop. */
typedef enum {
    F_BATCH, F_Q_LEN, F_HEADS, F_KV_LEN, F_SPLITS, F_MODE, F_L2, F_ICACHE, F_SEED, F_Q_STD, F_KV_STD, F_CAUSAL,
    F_Q_QUANT, F_PLAN, F_PAGE_SIZE, F_PAGE_ORDER, F_NAME, F_KV_LENS, F_WARMUP, F_MIN_RUNS, F_MAX_RUNS,
    F_TARGET_RSE, F_MAX_SECONDS, F_PLACEMENTS, F_ATOL, F_RTOL, F_MAX_REL_L2, F_COUNT
} field_id_t;

enum { F_LAST_GRID = F_PAGE_ORDER };

typedef enum { K_INT, K_NUM, K_BOOL, K_CHOICE, K_SPLITS, K_KV_LEN, K_KV_LENS, K_NAME } kind_t;

typedef struct field {
    kind_t kind;
    double lo, hi;             /* accepted range (K_KV_LENS: of the list's length) */
    int lo_open;               /* K_NUM: lo itself is excluded */
    const char *choice[3];     /* K_CHOICE: the value is the index of the matching string */
} field_t;

static const char *const CASE_KEYS[F_COUNT] = {
    [F_BATCH] = "batch", [F_Q_LEN] = "q_len", [F_HEADS] = "heads", [F_KV_LEN] = "kv_len",
    [F_SPLITS] = "num_kv_splits", [F_MODE] = "mode", [F_L2] = "l2", [F_ICACHE] = "icache", [F_SEED] = "seed",
    [F_Q_STD] = "q_std", [F_KV_STD] = "kv_std", [F_CAUSAL] = "causal", [F_Q_QUANT] = "q_quant",
    [F_PLAN] = "plan", [F_PAGE_SIZE] = "page_size", [F_PAGE_ORDER] = "page_order", [F_NAME] = "name",
    [F_KV_LENS] = "kv_lens", [F_WARMUP] = "warmup", [F_MIN_RUNS] = "min_runs",
    [F_MAX_RUNS] = "max_runs", [F_TARGET_RSE] = "target_rse", [F_MAX_SECONDS] = "max_seconds",
    [F_PLACEMENTS] = "placements",
    [F_ATOL] = "atol", [F_RTOL] = "rtol", [F_MAX_REL_L2] = "max_rel_l2",
};

static const field_t FIELDS[F_COUNT] = {
    [F_BATCH] = {K_INT, 1, MB_MAX_BATCH, 0, {0}},
    [F_Q_LEN] = {K_INT, 1, MB_MAX_Q_LEN, 0, {0}},
    [F_HEADS] = {K_INT, 1, MB_MAX_HEADS, 0, {0}},
    [F_KV_LEN] = {K_KV_LEN, 1, MB_MAX_KV_LEN, 0, {0}},
    [F_SPLITS] = {K_SPLITS, 1, MB_MAX_SPLITS, 0, {0}},
    [F_MODE] = {K_CHOICE, 0, 0, 0, {"eager", "graph"}},
    [F_L2] = {K_CHOICE, 0, 0, 0, {"cold", "hot", "cold-clean"}},
    [F_ICACHE] = {K_CHOICE, 0, 0, 0, {"warm", "cold"}},
    /* 2^53: larger seeds would not survive a round trip through a JSON double */
    [F_SEED] = {K_INT, 0, 9007199254740992.0, 0, {0}},
    [F_Q_STD] = {K_NUM, 0, 1e4, 1, {0}},
    [F_KV_STD] = {K_NUM, 0, 1e4, 1, {0}},
    [F_CAUSAL] = {K_BOOL, 0, 0, 0, {0}},
    [F_Q_QUANT] = {K_CHOICE, 0, 0, 0, {"cast", "amax", "none"}},
    [F_PLAN] = {K_CHOICE, 0, 0, 0, {"cached", "rebuild"}},
    /* 0: a flat cache */
    [F_PAGE_SIZE] = {K_INT, 0, MB_MAX_PAGE_SIZE, 0, {0}},
    [F_PAGE_ORDER] = {K_CHOICE, 0, 0, 0, {"shuffled", "contiguous"}},
    [F_NAME] = {K_NAME, 1, MAX_NAME_LEN, 0, {0}},
    [F_KV_LENS] = {K_KV_LENS, 1, MB_MAX_BATCH, 0, {0}},
    [F_WARMUP] = {K_INT, 0, 1000, 0, {0}},
    [F_MIN_RUNS] = {K_INT, 1, 100000, 0, {0}},
    [F_MAX_RUNS] = {K_INT, 1, 1000000, 0, {0}},
    [F_TARGET_RSE] = {K_NUM, 0, 1, 1, {0}},
    [F_MAX_SECONDS] = {K_NUM, 0, 3600, 1, {0}},
    [F_PLACEMENTS] = {K_INT, 1, MB_MAX_PLACEMENTS, 0, {0}},
    [F_ATOL] = {K_NUM, 0, 1, 0, {0}},
    [F_RTOL] = {K_NUM, 0, 1, 0, {0}},
    [F_MAX_REL_L2] = {K_NUM, 0, 1, 0, {0}},
};

static const char *const TOP_KEYS[] = {"description", "defaults", "cases"};
static const char *const UNIFORM_KEYS[] = {"uniform"};

/* One checked value. K_KV_LEN: lengths drawn from [v, hi] when uniform, else all v. */
typedef struct value {
    double v, hi;
    int uniform;
} value_t;

/* Where each field of one case entry comes from: the entry itself, "defaults", or (item NULL) the
 * built-in default. */
typedef struct sources {
    const cJSON *item[F_COUNT];
    const char *prefix[F_COUNT];   /* JSON path of the object holding item */
    int n[F_COUNT];                /* values of a grid key: 1 unless given as an array */
} sources_t;

typedef struct ctx {
    const char *file;
    char *err;
    size_t errlen;
} ctx_t;

static int fail(ctx_t *x, const char *fmt, ...)
{
    if (!x->err || !x->errlen) return 2;
    int n = snprintf(x->err, x->errlen, "%s: ", x->file);
    if (n >= 0 && (size_t)n < x->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(x->err + n, x->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return 2;
}

/* The offending value as compact JSON, cut short on a UTF-8 boundary so a message stays one line. */
static void show(const cJSON *item, char *buf, size_t n)
{
    if (!item) { snprintf(buf, n, "nothing"); return; }
    /* cJSON prints an overflowed number (1e999) as null, which would hide what was written */
    if (cJSON_IsNumber(item) && !isfinite(item->valuedouble)) { snprintf(buf, n, "a number out of range"); return; }
    char *s = cJSON_PrintUnformatted(item);
    if (!s) { snprintf(buf, n, "(a value too large to print)"); return; }
    size_t len = strlen(s);
    if (len > SHOW_LEN) {
        len = SHOW_LEN;
        while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80) len--;
        snprintf(buf, n, "%.*s...", (int)len, s);
    } else {
        snprintf(buf, n, "%s", s);
    }
    cJSON_free(s);
}

/* A key as a JSON string, so control characters in it cannot break the message. */
static void show_key(const char *key, char *buf, size_t n)
{
    cJSON *s = cJSON_CreateStringReference(key);
    show(s, buf, n);
    cJSON_Delete(s);
}

static int expected(ctx_t *x, const char *path, const char *what, const cJSON *got)
{
    char shown[SHOW_LEN + 16];
    show(got, shown, sizeof shown);
    return fail(x, "%s: expected %s, got %s", path, what, shown);
}

static int out_of_memory(ctx_t *x)
{
    return fail(x, "%s", strerror(ENOMEM));
}

static int syntax_error(ctx_t *x, const char *text, size_t offset, const char *why)
{
    int line = 1, col = 1;
    for (size_t i = 0; i < offset; i++) {
        if (text[i] == '\n') { line++; col = 1; }
        else col++;
    }
    if (x->err && x->errlen) snprintf(x->err, x->errlen, "%s:%d:%d: JSON syntax error%s", x->file, line, col, why);
    return 2;
}

/* An empty prefix: the key alone (a --set value, checked outside any file: mb_config_check_set). */
static void field_path(char *buf, size_t n, const char *prefix, int f)
{
    snprintf(buf, n, "%s%s%s", prefix, *prefix ? "." : "", CASE_KEYS[f]);
}

static void elem_path(char *buf, size_t n, const char *path, int i)
{
    snprintf(buf, n, "%s[%d]", path, i);
}

static int levenshtein(const char *a, const char *b)
{
    enum { MAXL = 32 };
    size_t la = strlen(a), lb = strlen(b);
    if (la >= MAXL || lb >= MAXL) return MAXL;
    int prev[MAXL + 1], cur[MAXL + 1];
    for (size_t j = 0; j <= lb; j++) prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, sizeof *cur * (lb + 1));
    }
    return prev[lb];
}

static int unknown_key(ctx_t *x, const char *path, const char *key, const char *const *keys, int n)
{
    char shown[SHOW_LEN + 16];
    int best = -1, best_d = 3;   /* suggest only a near miss: at most two edits */
    for (int i = 0; i < n; i++) {
        int d = levenshtein(key, keys[i]);
        if (d < best_d && d < (int)strlen(keys[i])) { best = i; best_d = d; }
    }
    show_key(key, shown, sizeof shown);
    const char *sep = *path ? ": " : "";
    if (best < 0) return fail(x, "%s%sunknown key %s", path, sep, shown);
    return fail(x, "%s%sunknown key %s (did you mean \"%s\"?)", path, sep, shown, keys[best]);
}

/* Unknown keys are errors so that a typo cannot silently fall back to a default, and so are repeated
 * ones, which cJSON would otherwise resolve by taking the first. */
static int check_keys(ctx_t *x, const cJSON *obj, const char *path, const char *const *keys, int n)
{
    unsigned long seen = 0;
    for (const cJSON *it = obj->child; it; it = it->next) {
        int k = 0;
        while (k < n && strcmp(it->string, keys[k]) != 0) k++;
        if (k == n) return unknown_key(x, path, it->string, keys, n);
        if (seen & (1ul << k)) return fail(x, "%s: duplicate key \"%s\"", path, keys[k]);
        seen |= 1ul << k;
    }
    return 0;
}

static int has(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key) != NULL;
}

static int int_in(const cJSON *it, double lo, double hi)
{
    return cJSON_IsNumber(it) && it->valuedouble == floor(it->valuedouble) && it->valuedouble >= lo &&
           it->valuedouble <= hi;
}

static int num_in(const cJSON *it, const field_t *d)
{
    if (!cJSON_IsNumber(it)) return 0;
    double v = it->valuedouble;
    return (d->lo_open ? v > d->lo : v >= d->lo) && v <= d->hi;
}

static int name_ok(const cJSON *it)
{
    if (!cJSON_IsString(it)) return 0;
    size_t len = strlen(it->valuestring);
    if (len < 1 || len > MAX_NAME_LEN) return 0;
    for (const unsigned char *p = (const unsigned char *)it->valuestring; *p; p++)
        if (*p < 0x20 || *p == 0x7f) return 0;
    return 1;
}

static void describe(int f, char *buf, size_t n)
{
    const field_t *d = &FIELDS[f];
    switch (d->kind) {
    case K_INT: snprintf(buf, n, "integer in [%.17g, %.17g]", d->lo, d->hi); break;
    case K_NUM: snprintf(buf, n, "number in %c%.17g, %.17g]", d->lo_open ? '(' : '[', d->lo, d->hi); break;
    case K_BOOL: snprintf(buf, n, "true or false"); break;
    case K_CHOICE:
        if (d->choice[2]) snprintf(buf, n, "\"%s\", \"%s\" or \"%s\"", d->choice[0], d->choice[1], d->choice[2]);
        else snprintf(buf, n, "\"%s\" or \"%s\"", d->choice[0], d->choice[1]);
        break;
    case K_SPLITS: snprintf(buf, n, "\"auto\", \"tuned\" or integer in [%.17g, %.17g]", d->lo, d->hi); break;
    case K_KV_LEN:
        snprintf(buf, n, "integer in [%.17g, %.17g] or {\"uniform\": [lo, hi]}", d->lo, d->hi);
        break;
    case K_KV_LENS: snprintf(buf, n, "non-empty array of at most %.17g integers", d->hi); break;
    case K_NAME: snprintf(buf, n, "string of 1 to %d bytes without control characters", MAX_NAME_LEN); break;
    }
}

static int parse_uniform(ctx_t *x, const cJSON *obj, const char *path, value_t *out)
{
    char upath[SUB_PATH_LEN], epath[SUB_ELEM_PATH_LEN], what[WHAT_LEN];
    int rc = check_keys(x, obj, path, UNIFORM_KEYS, 1);
    if (rc) return rc;
    const cJSON *range = cJSON_GetObjectItemCaseSensitive(obj, "uniform");
    if (!range) {
        describe(F_KV_LEN, what, sizeof what);
        return expected(x, path, what, obj);
    }
    snprintf(upath, sizeof upath, "%s.uniform", path);
    snprintf(what, sizeof what, "[lo, hi] with 1 <= lo <= hi <= %d", MB_MAX_KV_LEN);
    if (!cJSON_IsArray(range) || cJSON_GetArraySize(range) != 2) return expected(x, upath, what, range);
    for (int i = 0; i < 2; i++) {
        const cJSON *end = cJSON_GetArrayItem(range, i);
        if (int_in(end, 1, MB_MAX_KV_LEN)) continue;
        elem_path(epath, sizeof epath, upath, i);
        snprintf(what, sizeof what, "integer in [1, %d]", MB_MAX_KV_LEN);
        return expected(x, epath, what, end);
    }
    out->v = cJSON_GetArrayItem(range, 0)->valuedouble;
    out->hi = cJSON_GetArrayItem(range, 1)->valuedouble;
    out->uniform = 1;
    if (out->v > out->hi) return expected(x, upath, what, range);
    return 0;
}

static int parse_kv_lens(ctx_t *x, const cJSON *it, const char *path, value_t *out)
{
    char what[WHAT_LEN], epath[SUB_PATH_LEN];
    int n = cJSON_IsArray(it) ? cJSON_GetArraySize(it) : 0;
    if (n < FIELDS[F_KV_LENS].lo || n > FIELDS[F_KV_LENS].hi) {
        describe(F_KV_LENS, what, sizeof what);
        return expected(x, path, what, it);
    }
    int i = 0;
    const cJSON *len;
    cJSON_ArrayForEach(len, it) {
        if (!int_in(len, 1, MB_MAX_KV_LEN)) {
            elem_path(epath, sizeof epath, path, i);
            snprintf(what, sizeof what, "integer in [1, %d]", MB_MAX_KV_LEN);
            return expected(x, epath, what, len);
        }
        i++;
    }
    out->v = n;
    return 0;
}

/* Checks one value of field f (a single value: one element of a grid array) and converts it. */
static int parse_value(ctx_t *x, int f, const cJSON *it, const char *path, value_t *out)
{
    const field_t *d = &FIELDS[f];
    char what[WHAT_LEN];
    memset(out, 0, sizeof *out);
    switch (d->kind) {
    case K_INT:
        if (!int_in(it, d->lo, d->hi)) break;
        out->v = it->valuedouble;
        return 0;
    case K_NUM:
        if (!num_in(it, d)) break;
        out->v = it->valuedouble;
        return 0;
    case K_BOOL:
        if (!cJSON_IsBool(it)) break;
        out->v = cJSON_IsTrue(it);
        return 0;
    case K_CHOICE:
        for (int i = 0; i < 3 && d->choice[i]; i++) {
            if (cJSON_IsString(it) && strcmp(it->valuestring, d->choice[i]) == 0) {
                out->v = i;
                return 0;
            }
        }
        break;
    case K_SPLITS:
        if (cJSON_IsString(it) && strcmp(it->valuestring, "auto") == 0) return 0;
        if (cJSON_IsString(it) && strcmp(it->valuestring, "tuned") == 0) { out->v = MB_SPLITS_TUNED; return 0; }
        if (!int_in(it, d->lo, d->hi)) break;
        out->v = it->valuedouble;
        return 0;
    case K_KV_LEN:
        if (cJSON_IsObject(it)) return parse_uniform(x, it, path, out);
        if (!int_in(it, d->lo, d->hi)) break;
        out->v = out->hi = it->valuedouble;
        return 0;
    case K_KV_LENS:
        return parse_kv_lens(x, it, path, out);
    case K_NAME:
        if (!name_ok(it)) break;
        return 0;
    }
    describe(f, what, sizeof what);
    return expected(x, path, what, it);
}

static int is_grid_array(int f, const cJSON *it)
{
    return f <= F_LAST_GRID && cJSON_IsArray(it);
}

/* A grid key's array must be non-empty and every element valid; other keys take one value. */
static int check_field(ctx_t *x, int f, const cJSON *it, const char *prefix)
{
    char path[KEY_PATH_LEN], epath[ELEM_PATH_LEN], one[WHAT_LEN], what[WHAT_LEN + 32];
    value_t v;
    field_path(path, sizeof path, prefix, f);
    if (!is_grid_array(f, it)) return parse_value(x, f, it, path, &v);
    if (!it->child) {
        describe(f, one, sizeof one);
        snprintf(what, sizeof what, "%s, or a non-empty array of them", one);
        return expected(x, path, what, it);
    }
    int i = 0;
    const cJSON *el;
    cJSON_ArrayForEach(el, it) {
        elem_path(epath, sizeof epath, path, i++);
        int rc = parse_value(x, f, el, epath, &v);
        if (rc) return rc;
    }
    return 0;
}

/* Keys and values of "defaults" or of one case entry, each checked where it is written. */
static int check_entry(ctx_t *x, const cJSON *obj, const char *prefix)
{
    int rc = check_keys(x, obj, prefix, CASE_KEYS, F_COUNT);
    for (int f = 0; f < F_COUNT && !rc; f++) {
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, CASE_KEYS[f]);
        if (it) rc = check_field(x, f, it, prefix);
    }
    if (!rc && has(obj, "kv_len") && has(obj, "kv_lens"))
        rc = fail(x, "%s: give kv_len or kv_lens, not both", prefix);
    return rc;
}

/* The list of lengths sets batch; a batch written next to it (or more specifically) must agree. */
static int check_batch_vs_list(ctx_t *x, const sources_t *s)
{
    char path[KEY_PATH_LEN], epath[ELEM_PATH_LEN], what[WHAT_LEN];
    const cJSON *b = s->item[F_BATCH];
    int n = cJSON_GetArraySize(s->item[F_KV_LENS]);
    snprintf(what, sizeof what, "%d (the length of kv_lens)", n);
    field_path(path, sizeof path, s->prefix[F_BATCH], F_BATCH);
    if (!cJSON_IsArray(b)) return b->valuedouble == n ? 0 : expected(x, path, what, b);
    int i = 0;
    const cJSON *el;
    cJSON_ArrayForEach(el, b) {
        if (el->valuedouble != n) {
            elem_path(epath, sizeof epath, path, i);
            return expected(x, epath, what, el);
        }
        i++;
    }
    return 0;
}

/* Merges an entry over the defaults. kv_len and kv_lens replace each other: an entry giving either
 * takes neither from the defaults; likewise an entry's own kv_lens replaces a default batch. */
static int resolve(ctx_t *x, const cJSON *defaults, const cJSON *entry, const char *prefix, sources_t *s)
{
    for (int f = 0; f < F_COUNT; f++) {
        const cJSON *own = cJSON_GetObjectItemCaseSensitive(entry, CASE_KEYS[f]);
        s->item[f] = own ? own : cJSON_GetObjectItemCaseSensitive(defaults, CASE_KEYS[f]);
        s->prefix[f] = own ? prefix : "defaults";
    }
    if (has(entry, "kv_len") || has(entry, "kv_lens")) {
        s->item[F_KV_LEN] = cJSON_GetObjectItemCaseSensitive(entry, "kv_len");
        s->item[F_KV_LENS] = cJSON_GetObjectItemCaseSensitive(entry, "kv_lens");
        s->prefix[F_KV_LEN] = s->prefix[F_KV_LENS] = prefix;
    }
    if (!s->item[F_KV_LEN] && !s->item[F_KV_LENS])
        return fail(x, "%s: missing key \"kv_len\" (or \"kv_lens\")", prefix);
    if (s->item[F_KV_LENS] && s->item[F_BATCH] && s->prefix[F_BATCH] != prefix && s->prefix[F_KV_LENS] == prefix)
        s->item[F_BATCH] = NULL;
    if (s->item[F_KV_LENS] && s->item[F_BATCH]) {
        int rc = check_batch_vs_list(x, s);
        if (rc) return rc;
    }
    if (!s->item[F_KV_LENS] && !s->item[F_BATCH])
        return fail(x, "%s: missing key \"batch\" (needed unless kv_lens is given)", prefix);
    for (int f = 0; f < F_COUNT; f++)
        s->n[f] = is_grid_array(f, s->item[f]) ? cJSON_GetArraySize(s->item[f]) : 1;
    return 0;
}

static void builtin_defaults(mb_case_t *c)
{
    c->q_len = MB_DEF_Q_LEN;
    c->heads = MB_DEF_HEADS;
    c->causal = MB_DEF_CAUSAL;
    c->splits = MB_DEF_SPLITS;
    c->mode = MB_DEF_MODE;
    c->l2 = MB_DEF_L2;
    c->icache = MB_DEF_ICACHE;
    c->seed = MB_DEF_SEED;
    c->q_std = MB_DEF_Q_STD;
    c->kv_std = MB_DEF_KV_STD;
    c->warmup = MB_DEF_WARMUP;
    c->min_runs = MB_DEF_MIN_RUNS;
    c->max_runs = MB_DEF_MAX_RUNS;
    c->target_rse = MB_DEF_TARGET_RSE;
    c->max_seconds = MB_DEF_MAX_SECONDS;
    c->placements = MB_DEF_PLACEMENTS;
    c->atol = MB_DEF_ATOL;
    c->rtol = MB_DEF_RTOL;
    c->max_rel_l2 = MB_DEF_MAX_REL_L2;
}

static void apply(mb_case_t *c, field_id_t f, value_t v)
{
    switch (f) {
    case F_BATCH: c->batch = (int)v.v; break;
    case F_Q_LEN: c->q_len = (int)v.v; break;
    case F_HEADS: c->heads = (int)v.v; break;
    case F_SPLITS: c->splits = (int)v.v; break;
    case F_MODE: c->mode = v.v == 0 ? MB_MODE_EAGER : MB_MODE_GRAPH; break;
    case F_L2: c->l2 = (mb_l2_t)v.v; break;
    case F_ICACHE: c->icache = (mb_icache_t)v.v; break;
    case F_SEED: c->seed = (uint64_t)v.v; break;
    case F_Q_STD: c->q_std = v.v; break;
    case F_KV_STD: c->kv_std = v.v; break;
    case F_CAUSAL: c->causal = (int)v.v; break;
    case F_Q_QUANT: c->q_quant = (mb_q_quant_t)v.v; break;
    case F_PLAN: c->plan_rebuild = (int)v.v; break;
    case F_PAGE_SIZE: c->page_size = (int)v.v; break;
    case F_PAGE_ORDER: c->page_order = (mb_page_order_t)v.v; break;
    case F_WARMUP: c->warmup = (int)v.v; break;
    case F_MIN_RUNS: c->min_runs = (int)v.v; break;
    case F_MAX_RUNS: c->max_runs = (int)v.v; break;
    case F_TARGET_RSE: c->target_rse = v.v; break;
    case F_MAX_SECONDS: c->max_seconds = v.v; break;
    case F_PLACEMENTS: c->placements = (int)v.v; break;
    case F_ATOL: c->atol = v.v; break;
    case F_RTOL: c->rtol = v.v; break;
    case F_MAX_REL_L2: c->max_rel_l2 = v.v; break;
    /* these need the whole case (the seed, the batch): set_kv and set_name handle them */
    case F_KV_LEN: case F_KV_LENS: case F_NAME: case F_COUNT: break;
    }
}

static int set_kv(ctx_t *x, const sources_t *s, value_t kv, mb_case_t *c)
{
    if (s->item[F_KV_LENS]) c->batch = cJSON_GetArraySize(s->item[F_KV_LENS]);
    c->kv_lens = malloc(sizeof *c->kv_lens * (size_t)c->batch);
    if (!c->kv_lens) return out_of_memory(x);
    if (s->item[F_KV_LENS]) {
        int b = 0;
        const cJSON *len;
        cJSON_ArrayForEach(len, s->item[F_KV_LENS]) c->kv_lens[b++] = (int32_t)len->valuedouble;
        snprintf(c->kv_desc, sizeof c->kv_desc, "list");
        return 0;
    }
    uint64_t lo = (uint64_t)kv.v, span = (uint64_t)kv.hi - lo + 1;
    for (int b = 0; b < c->batch; b++)
        c->kv_lens[b] = (int32_t)(kv.uniform ? lo + mb_rng_u64(c->seed, MB_STREAM_KV_LENS, (uint64_t)b) % span : lo);
    if (kv.uniform) snprintf(c->kv_desc, sizeof c->kv_desc, "uniform[%.0f,%.0f]", kv.v, kv.hi);
    else snprintf(c->kv_desc, sizeof c->kv_desc, "%.0f", kv.v);
    return 0;
}

/* Shortest "%g" text that reads back as exactly d, so distinct grid values get distinct names. */
static void fmt_double(char *buf, size_t n, double d)
{
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, d);
        if (strtod(buf, NULL) == d) return;
    }
}

static void value_text(int f, value_t v, const char *kv_desc, char *buf, size_t n)
{
    const field_t *d = &FIELDS[f];
    if (f == F_KV_LEN) snprintf(buf, n, "%s", kv_desc);
    else if (d->kind == K_NUM) fmt_double(buf, n, v.v);
    else if (d->kind == K_BOOL) snprintf(buf, n, "%s", v.v ? "true" : "false");
    else if (d->kind == K_CHOICE) snprintf(buf, n, "%s", d->choice[(int)v.v]);
    else if (d->kind == K_SPLITS) mb_splits_request_text((int)v.v, buf, n);
    else snprintf(buf, n, "%.0f", v.v);
}

/* Explicit or generated base name, then "/key=value" for each grid key that varies within the entry
 * (a generated name already shows batch, q_len, kv and heads, so those are not repeated). */
static int set_name(ctx_t *x, const sources_t *s, const value_t *vals, const char *prefix, mb_case_t *c)
{
    char name[1024], val[64];
    const cJSON *given = s->item[F_NAME];
    size_t len;
    if (given) len = (size_t)snprintf(name, sizeof name, "%s", given->valuestring);
    else len = (size_t)snprintf(name, sizeof name, "b%d-q%d-kv%s-h%d", c->batch, c->q_len, c->kv_desc, c->heads);
    for (int f = 0; f <= F_LAST_GRID; f++) {
        int shown_in_base = !given && (f == F_BATCH || f == F_Q_LEN || f == F_HEADS || f == F_KV_LEN);
        if (s->n[f] < 2 || shown_in_base) continue;
        value_text(f, vals[f], c->kv_desc, val, sizeof val);
        len += (size_t)snprintf(name + len, sizeof name - len, "/%s=%s", CASE_KEYS[f], val);
    }
    if (len >= sizeof c->name) {
        return fail(x, "%s: expected a name of at most %zu bytes with its grid suffix, got \"%.40s...\"", prefix,
                    sizeof c->name - 1, name);
    }
    memcpy(c->name, name, len + 1);
    return 0;
}

static int check_runs(ctx_t *x, const sources_t *s, const char *prefix, const mb_case_t *c)
{
    char path[KEY_PATH_LEN], what[WHAT_LEN];
    /* blame the more specific of the two: the entry's own key over a default, max_runs on a tie */
    int min_own = s->item[F_MIN_RUNS] && s->prefix[F_MIN_RUNS] == prefix;
    int max_own = s->item[F_MAX_RUNS] && s->prefix[F_MAX_RUNS] == prefix;
    int blame_max = s->item[F_MAX_RUNS] && (max_own || !min_own);
    int f = blame_max ? F_MAX_RUNS : F_MIN_RUNS;
    field_path(path, sizeof path, s->prefix[f], f);
    if (blame_max) snprintf(what, sizeof what, "integer in [%d, %.17g] (at least min_runs)", c->min_runs, FIELDS[f].hi);
    else snprintf(what, sizeof what, "integer in [%.17g, %d] (at most max_runs)", FIELDS[f].lo, c->max_runs);
    return expected(x, path, what, s->item[f]);
}

/* A page order without pages would be silently ignored, so it is an error; and the cache rows (whole
 * pages, the last one of each batch padded) are indexed like tokens, so they too must fit in int32. */
static int check_pages(ctx_t *x, const sources_t *s, const char *where, const mb_case_t *c)
{
    if (s->item[F_PAGE_ORDER] && c->page_size == 0)
        return fail(x, "%s: \"page_order\" needs \"page_size\" > 0 (a flat cache has no pages)", where);
    int64_t rows = mb_case_cache_rows(c);
    if (rows > INT32_MAX)
        return fail(x, "%s: expected KV cache rows (kv lengths rounded up to whole pages) <= %d, got %lld", where,
                    INT32_MAX, (long long)rows);
    return 0;
}

/* Limits that involve several fields of one expanded case. */
static int check_case(ctx_t *x, const sources_t *s, const char *prefix, const char *where, const mb_case_t *c)
{
    if (c->max_runs < c->min_runs) return check_runs(x, s, prefix, c);
    int64_t total = mb_case_total_kv(c);
    if (total > INT32_MAX)
        return fail(x, "%s: expected total KV tokens (sum of kv lengths) <= %d, got %lld", where, INT32_MAX,
                    (long long)total);
    int rc = check_pages(x, s, where, c);
    if (rc) return rc;
    /* A graph replays one fixed call; rebuilding the plan on every call is a host-side cost it cannot show. */
    if (c->plan_rebuild && c->mode == MB_MODE_GRAPH)
        return fail(x, "%s: \"plan\": \"rebuild\" needs \"mode\": \"eager\" (a graph replays one fixed plan)", where);
    for (int b = 0; c->causal && b < c->batch; b++) {
        if (c->kv_lens[b] < c->q_len)
            return fail(x, "%s: causal needs kv_len >= q_len; batch %d has kv_len %d < q_len %d", where, b,
                        (int)c->kv_lens[b], c->q_len);
    }
    return 0;
}

/* One expanded case: the values at pick[] (cur[]: those elements) of each grid key. */
static int fill_case(ctx_t *x, const sources_t *s, const cJSON *const *cur, const int *pick, int multi,
                     const char *prefix, mb_case_t *c)
{
    char path[ELEM_PATH_LEN], where[PREFIX_LEN + sizeof c->name + 8];
    value_t vals[F_COUNT] = {{0}};
    builtin_defaults(c);
    for (int f = 0; f < F_COUNT; f++) {
        if (!s->item[f]) continue;
        if (is_grid_array(f, s->item[f])) {
            char whole[KEY_PATH_LEN];
            field_path(whole, sizeof whole, s->prefix[f], f);
            elem_path(path, sizeof path, whole, pick[f]);
        } else {
            field_path(path, sizeof path, s->prefix[f], f);
        }
        int rc = parse_value(x, f, cur[f], path, &vals[f]);
        if (rc) return rc;
        apply(c, (field_id_t)f, vals[f]);
    }
    int rc = set_kv(x, s, vals[F_KV_LEN], c);
    if (!rc) rc = set_name(x, s, vals, prefix, c);
    if (rc) return rc;
    /* a grid entry's errors name the expanded case too, since the entry alone is ambiguous */
    if (multi) snprintf(where, sizeof where, "%s (%s)", prefix, c->name);
    else snprintf(where, sizeof where, "%s", prefix);
    return check_case(x, s, prefix, where, c);
}

static int grow(ctx_t *x, mb_config_t *cfg, int *cap, int need)
{
    if (need <= *cap) return 0;
    int n = *cap ? *cap : 16;
    while (n < need) n *= 2;
    if (n > MAX_CASES) n = MAX_CASES;
    mb_case_t *p = realloc(cfg->cases, sizeof *p * (size_t)n);
    if (!p) return out_of_memory(x);
    cfg->cases = p;
    *cap = n;
    return 0;
}

/* Steps the grid like an odometer, the last grid key fastest, walking each array's children so a
 * long grid costs no more than a short one per case. */
static void next_pick(const sources_t *s, const cJSON **cur, int *pick)
{
    for (int f = F_LAST_GRID; f >= 0; f--) {
        if (s->n[f] < 2) continue;
        pick[f]++;
        cur[f] = cur[f]->next;
        if (cur[f]) return;
        pick[f] = 0;
        cur[f] = s->item[f]->child;
    }
}

static int expand_entry(ctx_t *x, mb_config_t *cfg, int *cap, const sources_t *s, int index, const char *prefix)
{
    long long total = 1;
    for (int f = 0; f <= F_LAST_GRID; f++) {
        total *= s->n[f];
        if (cfg->n_cases + total > MAX_CASES)
            return fail(x, "%s: grid expansion gives more than %d cases in the file", prefix, MAX_CASES);
    }
    int rc = grow(x, cfg, cap, cfg->n_cases + (int)total);
    const cJSON *cur[F_COUNT];
    int pick[F_COUNT] = {0};
    for (int f = 0; f < F_COUNT; f++) cur[f] = is_grid_array(f, s->item[f]) ? s->item[f]->child : s->item[f];
    for (long long k = 0; k < total && !rc; k++) {
        mb_case_t *c = &cfg->cases[cfg->n_cases];
        memset(c, 0, sizeof *c);
        cfg->n_cases++;
        c->file = cfg->path;
        c->index = index;
        rc = fill_case(x, s, cur, pick, total > 1, prefix, c);
        next_pick(s, cur, pick);
    }
    return rc;
}

static int by_name(const void *a, const void *b)
{
    const mb_case_t *ca = *(const mb_case_t *const *)a, *cb = *(const mb_case_t *const *)b;
    int d = strcmp(ca->name, cb->name);
    return d ? d : (ca > cb) - (ca < cb);
}

/* Names identify cases in reports and comparisons, so they must be unique. Sorting keeps this
 * O(n log n) for large grids; the duplicate reported is the earliest in the file. */
static int check_unique_names(ctx_t *x, const mb_config_t *cfg)
{
    const mb_case_t **sorted = malloc(sizeof *sorted * (size_t)cfg->n_cases);
    const mb_case_t *dup = NULL, *first = NULL;
    if (!sorted) return out_of_memory(x);
    for (int i = 0; i < cfg->n_cases; i++) sorted[i] = &cfg->cases[i];
    qsort(sorted, (size_t)cfg->n_cases, sizeof *sorted, by_name);
    for (int i = 1; i < cfg->n_cases; i++) {
        if (strcmp(sorted[i - 1]->name, sorted[i]->name) == 0 && (!dup || sorted[i] < dup)) {
            dup = sorted[i];
            first = sorted[i - 1];
        }
    }
    free(sorted);
    if (!dup) return 0;
    return fail(x, "cases[%d]: duplicate name \"%s\" (first used by cases[%d])", dup->index, dup->name, first->index);
}

static int build_cases(ctx_t *x, mb_config_t *cfg, const cJSON *defaults, const cJSON *cases)
{
    char prefix[PREFIX_LEN];
    int cap = 0, index = 0, rc = 0;
    const cJSON *entry;
    cJSON_ArrayForEach(entry, cases) {
        sources_t s;
        snprintf(prefix, sizeof prefix, "cases[%d]", index);
        if (!cJSON_IsObject(entry)) return expected(x, prefix, "object", entry);
        rc = check_entry(x, entry, prefix);
        if (!rc) rc = resolve(x, defaults, entry, prefix, &s);
        if (!rc) rc = expand_entry(x, cfg, &cap, &s, index, prefix);
        if (rc) return rc;
        index++;
    }
    return check_unique_names(x, cfg);
}

static int build_from(ctx_t *x, mb_config_t *cfg, const cJSON *root)
{
    if (!cJSON_IsObject(root)) return expected(x, "top level", "object", root);
    int rc = check_keys(x, root, "top level", TOP_KEYS, 3);
    if (rc) return rc;
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(root, "description");
    const cJSON *defaults = cJSON_GetObjectItemCaseSensitive(root, "defaults");
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    if (desc && !cJSON_IsString(desc)) return expected(x, "description", "string", desc);
    if (defaults && !cJSON_IsObject(defaults)) return expected(x, "defaults", "object", defaults);
    if (defaults) rc = check_entry(x, defaults, "defaults");
    if (rc) return rc;
    if (!cases) return fail(x, "top level: missing key \"cases\"");
    if (!cJSON_IsArray(cases) || !cases->child) return expected(x, "cases", "non-empty array of case objects", cases);
    return build_cases(x, cfg, defaults, cases);
}

/* Parses cfg->text (owned by cfg already); on failure the caller frees cfg. */
static int build(ctx_t *x, mb_config_t *cfg)
{
    const char *end = NULL;
    /* require_null_terminated: text after the top-level value is an error, not ignored */
    cJSON *root = cJSON_ParseWithOpts(cfg->text, &end, 1);
    int rc;
    if (!root) {
        rc = syntax_error(x, cfg->text, end ? (size_t)(end - cfg->text) : 0, "");
        goto end;
    }
    rc = build_from(x, cfg, root);
end:
    cJSON_Delete(root);
    return rc;
}

/* Reads a whole file, any kind (pipes too), NUL-terminated; *len excludes the terminator. */
static int read_file(ctx_t *x, const char *path, char **out, size_t *len)
{
    size_t n = 0, cap = 0, got;
    char *buf = NULL;
    int rc = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        rc = fail(x, "cannot read: %s", strerror(errno));
        goto end;
    }
    do {
        if (cap - n < 2) {
            size_t ncap = cap ? cap * 2 : 65536;
            char *p = realloc(buf, ncap);
            if (!p) { rc = out_of_memory(x); goto end; }
            buf = p;
            cap = ncap;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    if (ferror(f)) {
        rc = fail(x, "cannot read: %s", strerror(errno));
        goto end;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    buf = NULL;
end:
    if (f) fclose(f);
    free(buf);
    return rc;
}

int mb_config_check_set(const char *arg, const char *key, const cJSON *value, char *err, size_t errlen)
{
    ctx_t x = {arg, err, errlen};
    cJSON *obj = cJSON_CreateObject();
    if (!obj || !cJSON_AddItemReferenceToObject(obj, key, (cJSON *)value)) {
        cJSON_Delete(obj);
        return out_of_memory(&x);
    }
    int rc = check_entry(&x, obj, "");
    cJSON_Delete(obj);
    return rc;
}

int mb_config_load(const char *path, mb_config_t *cfg, char *err, size_t errlen)
{
    return mb_config_load_set(path, NULL, 0, cfg, err, errlen);
}

int mb_config_load_set(const char *path, const char *const *sets, int n_sets, mb_config_t *cfg, char *err,
                       size_t errlen)
{
    ctx_t x = {path, err, errlen};
    size_t len = 0;
    int rc;
    memset(cfg, 0, sizeof *cfg);
    cfg->path = strdup(path);
    if (!cfg->path) { rc = out_of_memory(&x); goto end; }
    rc = read_file(&x, path, &cfg->text, &len);
    if (rc) goto end;
    /* cJSON stops at a NUL byte, which would silently drop the rest of the file */
    if (strlen(cfg->text) != len) { rc = syntax_error(&x, cfg->text, strlen(cfg->text), " (NUL byte)"); goto end; }
    if (n_sets && (rc = mb_config_apply_sets(cfg, sets, n_sets, err, errlen))) goto end;
    rc = build(&x, cfg);
    /* The file's own text did not say this: the overrides did, with it. */
    if (rc && cfg->sets && err && strlen(err) + strlen(cfg->sets) + 16 < errlen)
        strcat(strcat(strcat(err, " (with "), cfg->sets), ")");
end:
    if (rc) mb_config_free(cfg);
    return rc;
}

int mb_config_parse(const char *path, const char *text, mb_config_t *cfg, char *err, size_t errlen)
{
    ctx_t x = {path, err, errlen};
    int rc;
    memset(cfg, 0, sizeof *cfg);
    cfg->path = strdup(path);
    cfg->text = strdup(text);
    if (!cfg->path || !cfg->text) { rc = out_of_memory(&x); goto end; }
    rc = build(&x, cfg);
end:
    if (rc) mb_config_free(cfg);
    return rc;
}

void mb_config_free(mb_config_t *cfg)
{
    if (!cfg) return;
    for (int i = 0; i < cfg->n_cases; i++) free(cfg->cases[i].kv_lens);
    free(cfg->cases);
    free(cfg->path);
    free(cfg->text);
    free(cfg->sets);
    memset(cfg, 0, sizeof *cfg);
}

const char *mb_mode_name(mb_mode_t m)
{
    return m == MB_MODE_EAGER ? "eager" : "graph";
}

const char *mb_l2_name(mb_l2_t l)
{
    return FIELDS[F_L2].choice[l];
}

const char *mb_icache_name(mb_icache_t i)
{
    return FIELDS[F_ICACHE].choice[i];
}

const char *mb_q_quant_name(mb_q_quant_t q)
{
    return FIELDS[F_Q_QUANT].choice[q];
}

const char *mb_page_order_name(mb_page_order_t o)
{
    return FIELDS[F_PAGE_ORDER].choice[o];
}

void mb_splits_request_text(int splits, char *buf, size_t n)
{
    if (splits == 0) snprintf(buf, n, "auto");
    else if (splits == MB_SPLITS_TUNED) snprintf(buf, n, "tuned");
    else snprintf(buf, n, "%d", splits);
}

int64_t mb_case_total_kv(const mb_case_t *c)
{
    int64_t total = 0;
    for (int b = 0; b < c->batch; b++) total += c->kv_lens[b];
    return total;
}

int64_t mb_case_pages(const mb_case_t *c)
{
    int64_t pages = 0;
    for (int b = 0; c->page_size > 0 && b < c->batch; b++) pages += (c->kv_lens[b] + c->page_size - 1) / c->page_size;
    return pages;
}

int64_t mb_case_cache_rows(const mb_case_t *c)
{
    return c->page_size > 0 ? mb_case_pages(c) * c->page_size : mb_case_total_kv(c);
}
