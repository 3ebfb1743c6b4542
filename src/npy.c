/* NumPy .npy format 1.0: magic, version, header length, a Python dict literal padded to 64 bytes, data. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "npy.h"
#include "report.h"

/* "<f4" -> 4: byte order ('<', '>', '|', '='), kind letter, then the item size in bytes. 0: not a
 * descr this writer understands. */
static size_t item_size(const char *dtype)
{
    size_t n = strlen(dtype);
    if (n < 3 || n > 5 || !strchr("<>|=", dtype[0]) || !isalpha((unsigned char)dtype[1])) return 0;
    size_t size = 0;
    for (size_t i = 2; i < n; i++) {
        if (!isdigit((unsigned char)dtype[i])) return 0;
        size = size * 10 + (size_t)(dtype[i] - '0');
    }
    return size;
}

/* The dict text; 0 for a bad shape. shape (n) needs its trailing comma to be a tuple in Python. */
static int header_dict(char *dict, size_t cap, const char *dtype, const int64_t *shape, int ndim)
{
    int o = snprintf(dict, cap, "{'descr': '%s', 'fortran_order': False, 'shape': (", dtype);
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0) return 0;
        o += snprintf(dict + o, cap - (size_t)o, "%s%lld", i ? ", " : "", (long long)shape[i]);
    }
    o += snprintf(dict + o, cap - (size_t)o, "%s), }", ndim == 1 ? "," : "");
    return o;
}

int mb_npy_write(const char *path, const char *dtype, const int64_t *shape, int ndim, const void *data,
                 char *err, size_t errlen)
{
    size_t item = item_size(dtype);
    if (!item) { snprintf(err, errlen, "%s: unsupported dtype \"%s\"", path, dtype); return -1; }
    if (ndim < 0 || ndim > 4) { snprintf(err, errlen, "%s: ndim %d is not 0..4", path, ndim); return -1; }
    /* Fits the longest: a 5-char descr and four 19-digit sizes. */
    char dict[192];
    int dlen = header_dict(dict, sizeof dict, dtype, shape, ndim);
    if (!dlen) { snprintf(err, errlen, "%s: negative dimension in shape", path); return -1; }
    size_t bytes = item;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] && bytes > SIZE_MAX / (uint64_t)shape[i]) {
            snprintf(err, errlen, "%s: shape too large", path);
            return -1;
        }
        bytes *= (size_t)shape[i];
    }
    if (bytes && !data) { snprintf(err, errlen, "%s: no data", path); return -1; }
    /* magic (6) + version (2) + length (2) + dict + '\n', padded with spaces to a multiple of 64 so
     * the data that follows is aligned for memory mapping. */
    unsigned char head[256];
    size_t total = (10 + (size_t)dlen + 1 + 63) / 64 * 64;
    size_t hlen = total - 10;
    memcpy(head, "\x93NUMPY\x01\x00", 8);
    head[8] = (unsigned char)(hlen & 0xff);
    head[9] = (unsigned char)(hlen >> 8);
    memcpy(head + 10, dict, (size_t)dlen);
    memset(head + 10 + dlen, ' ', total - 11 - (size_t)dlen);
    head[total - 1] = '\n';
    mb_buf_t parts[2] = {{head, total}, {data, bytes}};
    return mb_write_parts_atomic(path, parts, 2, err, errlen);
}
