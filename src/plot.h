/* Charts of result files, drawn from the files themselves (so `mla-bench plot FILE.json` and the
 * --plot flags share one path): a run's effective bandwidth per case against the measured copy
 * bandwidth, a sweep's time against num_kv_splits per shape, a comparison's change per case with its
 * noise band. */
#ifndef MB_PLOT_H
#define MB_PLOT_H

#include <stddef.h>

/* Reads json_path (a run, sweep or compare result, told apart by its schema) and writes an SVG to
 * svg_path. 0, or 2 (unreadable or unknown file) / 4 (cannot write) with a message in err. */
int mb_plot_file(const char *json_path, const char *svg_path, char *err, size_t errlen);
/* FILE.json -> FILE.svg */
void mb_plot_default_path(const char *json_path, char *buf, size_t n);

#endif
