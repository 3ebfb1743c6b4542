/* Exact writing and checked reading of the tool's own JSON files (results, comparisons). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jsonio.h"
#include "report.h"

cJSON *jb_put(jb_t *b, cJSON *parent, const char *key, cJSON *item)
{
    if (item && (key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item)))
        return item;
    cJSON_Delete(item);
    b->oom = 1;
    return NULL;
}

cJSON *jb_num(double d)
{
    char buf[32];
    if (!isfinite(d)) return cJSON_CreateNull();
    mb_fmt_double(buf, d);
    return cJSON_CreateRaw(buf);
}

void jb_put_num(jb_t *b, cJSON *o, const char *key, double d) { jb_put(b, o, key, jb_num(d)); }
void jb_put_bool(jb_t *b, cJSON *o, const char *key, int v) { jb_put(b, o, key, cJSON_CreateBool(v)); }
void jb_put_str(jb_t *b, cJSON *o, const char *key, const char *s)
{
    jb_put(b, o, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

int jb_write(const jb_t *b, const cJSON *root, const char *path, char *err, size_t errlen)
{
    char *text = (b && b->oom) || !root ? NULL : cJSON_Print(root);
    if (!text) { snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM)); return -1; }
    size_t len = strlen(text);
    text[len] = '\n';   /* the terminator's byte becomes the final newline; the length says where to stop */
    int rc = mb_write_file_atomic(path, text, len + 1, err, errlen);
    free(text);
    return rc;
}

char *mb_read_text(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); return NULL; }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - 1 - len, f);
        if (len < cap - 1) break;
        char *grown = realloc(buf, cap *= 2);
        if (!grown) free(buf);
        buf = grown;
    }
    int e = buf ? (ferror(f) ? EIO : 0) : ENOMEM;
    fclose(f);
    if (e) { snprintf(err, errlen, "%s: %s", path, strerror(e)); free(buf); return NULL; }
    buf[len] = '\0';
    return buf;
}



void rd_fail(rd_t *r, const char *where, const char *key, const char *what)
{
    if (!r->bad) snprintf(r->err, r->errlen, "%s: %s%s: %s", r->path, where, key, what);
    r->bad = 1;
}

const cJSON *rd_item(rd_t *r, const cJSON *o, const char *where, const char *key)
{
    /* A missing parent was reported already; its children are not reported again. */
    const cJSON *it = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    if (o && !it) rd_fail(r, where, key, "missing");
    return it;
}

const cJSON *rd_typed(rd_t *r, const cJSON *o, const char *where, const char *key,
                             cJSON_bool (*is)(const cJSON *), const char *what)
{
    const cJSON *it = rd_item(r, o, where, key);
    if (it && !is(it)) { rd_fail(r, where, key, what); return NULL; }
    return it;
}

const cJSON *rd_obj(rd_t *r, const cJSON *o, const char *where, const char *key)
{
    return rd_typed(r, o, where, key, cJSON_IsObject, "expected an object");
}

const cJSON *rd_arr(rd_t *r, const cJSON *o, const char *where, const char *key)
{
    return rd_typed(r, o, where, key, cJSON_IsArray, "expected an array");
}

double rd_num(rd_t *r, const cJSON *o, const char *where, const char *key)
{
    const cJSON *it = rd_item(r, o, where, key);
    if (!it || cJSON_IsNull(it)) return NAN;
    if (!cJSON_IsNumber(it)) { rd_fail(r, where, key, "expected a number"); return NAN; }
    return it->valuedouble;
}

int rd_int(rd_t *r, const cJSON *o, const char *where, const char *key)
{
    const cJSON *it = rd_item(r, o, where, key);
    if (!it) return 0;
    double v = cJSON_IsNumber(it) ? it->valuedouble : NAN;
    if (!(v >= -2147483648.0 && v <= 2147483647.0 && v == floor(v))) {
        rd_fail(r, where, key, "expected an integer");
        return 0;
    }
    return (int)v;
}

/* An integer in [lo, hi]; lo and an error otherwise (the range in the message). */
int rd_int_in(rd_t *r, const cJSON *o, const char *where, const char *key, int lo, int hi)
{
    const int v = rd_int(r, o, where, key);
    if (r->bad) return lo;
    if (v < lo || v > hi) {
        char what[64];
        snprintf(what, sizeof what, "expected an integer in [%d, %d]", lo, hi);
        rd_fail(r, where, key, what);
        return lo;
    }
    return v;
}

/* Counts may pass 2^31; up to 2^53 a double holds them exactly. */
int64_t rd_count(rd_t *r, const cJSON *o, const char *where, const char *key)
{
    const cJSON *it = rd_item(r, o, where, key);
    if (!it) return 0;
    double v = cJSON_IsNumber(it) ? it->valuedouble : NAN;
    if (!(v >= 0 && v <= 9007199254740992.0 && v == floor(v))) {
        rd_fail(r, where, key, "expected a count");
        return 0;
    }
    return (int64_t)v;
}

int rd_bool(rd_t *r, const cJSON *o, const char *where, const char *key)
{
    const cJSON *it = rd_typed(r, o, where, key, cJSON_IsBool, "expected true or false");
    return it && cJSON_IsTrue(it);
}

/* Into a fixed field; a string that does not fit is an error, not a silent cut. */
void rd_str(rd_t *r, const cJSON *o, const char *where, const char *key, char *dst, size_t n)
{
    const cJSON *it = rd_typed(r, o, where, key, cJSON_IsString, "expected a string");
    if (!it) return;
    if (strlen(it->valuestring) >= n) { rd_fail(r, where, key, "string too long"); return; }
    strcpy(dst, it->valuestring);
}

/* A fresh copy, or NULL for null. */
char *rd_strdup(rd_t *r, const cJSON *o, const char *where, const char *key)
{
    const cJSON *it = rd_item(r, o, where, key);
    if (!it || cJSON_IsNull(it)) return NULL;
    if (!cJSON_IsString(it)) { rd_fail(r, where, key, "expected a string or null"); return NULL; }
    char *s = strdup(it->valuestring);
    if (!s) rd_fail(r, where, key, strerror(ENOMEM));
    return s;
}

/* One of names[0..n) (NULL entries skipped), as its index; -1 and an error otherwise. */
int rd_choice(rd_t *r, const cJSON *o, const char *where, const char *key, const char *const *names,
                     int n, const char *what)
{
    const cJSON *it = rd_typed(r, o, where, key, cJSON_IsString, what);
    for (int i = 0; it && i < n; i++)
        if (names[i] && !strcmp(it->valuestring, names[i])) return i;
    if (it) rd_fail(r, where, key, what);
    return -1;
}

