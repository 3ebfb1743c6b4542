/* NumPy .npy writer (format 1.0), so a dumped case can be re-checked in any tool. */
#ifndef MB_NPY_H
#define MB_NPY_H

#include <stddef.h>
#include <stdint.h>

/* dtype: a NumPy descr such as "<f4", "<i4", "|u1", "<u2". shape: ndim sizes (ndim 0..4).
 * Written atomically. Returns 0, or -1 with a message in err. */
int mb_npy_write(const char *path, const char *dtype, const int64_t *shape, int ndim, const void *data,
                 char *err, size_t errlen);

#endif
