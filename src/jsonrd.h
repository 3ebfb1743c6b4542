/* Checked reading of the tool's own JSON files: the first error wins and names the file and the JSON
 * path ("cases[2].time_us.median: expected a number"); accessors after an error return neutral values. */
#ifndef MB_JSONRD_H
#define MB_JSONRD_H

#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>

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
int64_t rd_count(rd_t *r, const cJSON *o, const char *where, const char *key);   /* 0 .. 2^53 */
int rd_bool(rd_t *r, const cJSON *o, const char *where, const char *key);
/* Into a fixed field; a string that does not fit is an error, not a silent cut. */
void rd_str(rd_t *r, const cJSON *o, const char *where, const char *key, char *dst, size_t n);
char *rd_strdup(rd_t *r, const cJSON *o, const char *where, const char *key);   /* NULL for null */
/* One of names[0..n) (NULL entries skipped), as its index; -1 and an error otherwise. */
int rd_choice(rd_t *r, const cJSON *o, const char *where, const char *key, const char *const *names, int n,
              const char *what);

#endif
