/* The one option parser of the subcommands (git's and jq's way: each command declares its options in
 * a table; the parsing, --help and the usage errors are written once). */
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* 1 if argv[*i] is --name VALUE or --name=VALUE (advancing *i past it); VALUE in *val, NULL if missing. */
static int take(int argc, char **argv, int *i, const char *name, const char **val)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0) return 0;
    if (argv[*i][n] == '=') { *val = argv[*i] + n + 1; return 1; }
    if (argv[*i][n] != '\0') return 0;
    *val = *i + 1 < argc ? argv[++*i] : NULL;
    return 1;
}

static int is_operand(const char *arg) { return arg[0] != '-' || arg[1] == '\0'; }

int mb_parse_opts(const char *cmd, int argc, char **argv, const mb_optdef_t *defs, const char *help,
                  int exit_codes, int *first)
{
    char **ops = malloc((size_t)argc * sizeof *ops);
    int nops = 0;
    if (!ops) return mb_die(MB_EXIT_USAGE, "%s: out of memory parsing the arguments", cmd);
    for (int i = 1; i < argc; i++) {
        if (is_operand(argv[i])) { ops[nops++] = argv[i]; continue; }
        if (!strcmp(argv[i], "--help")) {
            fputs(help, stdout);
            if (exit_codes) fputs(mb_exit_codes_help, stdout);
            free(ops);
            return -1;
        }
        const mb_optdef_t *d = defs;
        const char *v = NULL;
        for (; d->name; d++) {
            if (d->flag && !strcmp(argv[i], d->name)) { *d->flag = 1; break; }
            if ((d->value || d->list) && take(argc, argv, &i, d->name, &v)) break;
        }
        if (!d->name) {
            free(ops);
            return mb_die(MB_EXIT_USAGE, "%s: unknown option '%s' (see mla-bench %s --help)", cmd, argv[i], cmd);
        }
        if (d->value || d->list) {
            if (!v || !*v) { free(ops); return mb_die(MB_EXIT_USAGE, "%s: %s needs a value", cmd, d->name); }
            if (d->value) *d->value = v;
            else if (d->list->n < MB_OPT_LIST_MAX) d->list->v[d->list->n++] = v;
            else {
                free(ops);
                return mb_die(MB_EXIT_USAGE, "%s: %s given more than %d times", cmd, d->name, MB_OPT_LIST_MAX);
            }
        }
    }
    /* Operands last, in their order: commands read them as argv[*first .. argc). */
    for (int j = 0; j < nops; j++) argv[argc - nops + j] = ops[j];
    *first = argc - nops;
    free(ops);
    return 0;
}
