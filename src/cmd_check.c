/* mla-bench check CONFIG...: parse and validate configs without a GPU, listing the expanded cases. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "config.h"

static const char help[] =
    "usage: mla-bench check [--quiet] [--filter REGEX] [--set KEY=VALUE]... CONFIG...\n"
    "Validates each config (schema, ranges, unknown keys) and lists its expanded cases, or with --filter\n"
    "and --set those that `run` with them would run. No GPU needed.\n";

int cmd_check(int argc, char **argv)
{
    int quiet = 0, first, rc;
    const char *filter = NULL;
    mb_optlist_t sets = { { NULL }, 0 };
    const mb_optdef_t defs[] = {
        { "--quiet", &quiet, NULL, NULL },
        { "--filter", NULL, &filter, NULL },
        { "--set", NULL, NULL, &sets },
        { NULL, NULL, NULL, NULL },
    };
    if ((rc = mb_parse_opts("check", argc, argv, defs, help, 1, &first))) return rc < 0 ? MB_EXIT_OK : rc;
    if (first >= argc) { fputs(help, stderr); return MB_EXIT_USAGE; }
    for (int i = first; i < argc; i++) {
        mb_config_t cfg;
        char err[512];
        if (mb_config_load_set(argv[i], sets.v, sets.n, &cfg, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            rc = MB_EXIT_USAGE;
            continue;
        }
        const int all = cfg.n_cases;
        if (mb_config_filter(&cfg, filter, err, sizeof err) < 0) {
            mb_config_free(&cfg);
            return mb_die(MB_EXIT_USAGE, "%s", err);
        }
        printf("%s: ok, %d case%s", argv[i], all, all == 1 ? "" : "s");
        if (cfg.sets) printf(" with %s", cfg.sets);
        if (filter) printf(", %d match%s --filter '%s'", cfg.n_cases, cfg.n_cases == 1 ? "es" : "", filter);
        putchar('\n');
        for (int k = 0; k < cfg.n_cases && !quiet; k++) {
            const mb_case_t *c = &cfg.cases[k];
            char splits[16];
            mb_splits_request_text(c->splits, splits, sizeof splits);
            printf("  %-40s batch %5d  q_len %d  kv %-18s heads %3d  splits %-5s  %s", c->name, c->batch,
                   c->q_len, c->kv_desc, c->heads, splits, mb_mode_name(c->mode));
            if (c->page_size) printf("  pages %d %s", c->page_size, mb_page_order_name(c->page_order));
            putchar('\n');
        }
        mb_config_free(&cfg);
    }
    return rc;
}
