/* --set: overrides of a config's keys from the command line, applied to its JSON before it is built. */
#ifndef MB_CONFIG_SET_H
#define MB_CONFIG_SET_H

#include <cJSON.h>
#include "config.h"

/* Rewrites cfg->text with the overrides (reprinted JSON) and records them in cfg->sets. A text that is
 * not a JSON object is left for the build to report. 0, or 2 with "--set ARG: ..." in err. */
int mb_config_apply_sets(mb_config_t *cfg, const char *const *sets, int n, char *err, size_t errlen);
/* One override's value checked as the case key it names, as a config's own would be (config.c): 0, or
 * 2 with "ARG: KEY: expected ..." in err. */
int mb_config_check_set(const char *arg, const char *key, const cJSON *value, char *err, size_t errlen);

#endif
