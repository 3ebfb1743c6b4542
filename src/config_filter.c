/* --filter: the cases of a config whose names match a pattern, for running a few shapes of a config
 * without editing it (Google Benchmark's --benchmark_filter; a POSIX extended regular expression). */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"

int mb_config_filter(mb_config_t *cfg, const char *pattern, char *err, size_t errlen)
{
    if (!pattern) return cfg->n_cases;
    regex_t re;
    int rc = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc) {
        char why[128];
        regerror(rc, &re, why, sizeof why);
        snprintf(err, errlen, "--filter '%s': not a regular expression (%s)", pattern, why);
        return -1;
    }
    int kept = 0;
    for (int i = 0; i < cfg->n_cases; i++) {
        if (regexec(&re, cfg->cases[i].name, 0, NULL, 0) == 0) cfg->cases[kept++] = cfg->cases[i];
        else free(cfg->cases[i].kv_lens);
    }
    regfree(&re);
    cfg->n_cases = kept;
    return kept;
}
