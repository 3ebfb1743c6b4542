/* The tool's own JSON files. Writing: numbers as the shortest decimal that reads back as the same
 * double (cJSON's printing may lose the last bit), NaN and infinity as null, an allocation failure
 * remembered once. Reading: the first error wins and names the file and the JSON path
 * ("cases[2].time_us.median: expected a number"); accessors after an error return neutral values. */
#ifndef MB_JSONIO_H
#define MB_JSONIO_H

#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>

typedef struct { int oom; } jb_t;

/* Adds item under key (an array element when key is NULL); NULL and b->oom set on failure. */
cJSON *jb_put(jb_t *b, cJSON *parent, const char *key, cJSON *item);
cJSON *jb_num(double d);
void jb_put_num(jb_t *b, cJSON *o, const char *key, double d);
void jb_put_bool(jb_t *b, cJSON *o, const char *key, int v);
void jb_put_str(jb_t *b, cJSON *o, const char *key, const char *s);   /* NULL s: null */
/* The tree as text, ending in a newline, written to path atomically (the tree stays the caller's).
 * 0, or -1 with "PATH: reason" in err; an allocation failure b remembers (b may be NULL) is one. */
int jb_write(const jb_t *b, const cJSON *root, const char *path, char *err, size_t errlen);

typedef struct {
    const char *path;
    char *err;
    size_t errlen;
    int bad;
} rd_t;

/* The whole file, NUL-terminated (malloc'd), or NULL with "PATH: reason" in err. */
char *mb_read_text(const char *path, char *err, size_t errlen);

void rd_fail(rd_t *r, const char *where, const char *key, const char *what);
const cJSON *rd_item(rd_t *r, const cJSON *o, const char *where, const char *key);
const cJSON *rd_typed(rd_t *r, const cJSON *o, const char *where, const char *key, cJSON_bool (*is)(const cJSON *),
                      const char *what);
const cJSON *rd_obj(rd_t *r, const cJSON *o, const char *where, const char *key);
const cJSON *rd_arr(rd_t *r, const cJSON *o, const char *where, const char *key);
double rd_num(rd_t *r, const cJSON *o, const char *where, const char *key);   /* NaN for null */
int rd_int(rd_t *r, const cJSON *o, const char *where, const char *key);
int rd_int_in(rd_t *r, const cJSON *o, const char *where, const char *key, int lo, int hi);
int64_t rd_count(rd_t *r, const cJSON *o, const char *where, const char *key);   /* 0 .. 2^53 */
int rd_bool(rd_t *r, const cJSON *o, const char *where, const char *key);
/* Into a fixed field; a string that does not fit is an error, not a silent cut. */
void rd_str(rd_t *r, const cJSON *o, const char *where, const char *key, char *dst, size_t n);
char *rd_strdup(rd_t *r, const cJSON *o, const char *where, const char *key);   /* NULL for null */
/* One of names[0..n) (NULL entries skipped), as its index; -1 and an error otherwise. */
int rd_choice(rd_t *r, const cJSON *o, const char *where, const char *key, const char *const *names, int n,
              const char *what);

#endif
