/* mla-bench: benchmarks and validates the fp8 MLA decode path. Subcommand dispatch only. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "gpuenv.h"

const char mb_exit_codes_help[] =
    "exit codes:\n"
    "  0    ok: every case passed its check\n"
    "  1    a check failed\n"
    "  2    usage or config error\n"
    "  3    performance regression (gate)\n"
    "  4    GPU or runtime error (also: no GPU)\n"
    "  130  interrupted (Ctrl-C); tables of finished cases were written\n";

static const struct { const char *name; int (*fn)(int, char **); const char *summary; } commands[] = {
    { "run", cmd_run, "run configs on the GPU: generate, check, time, write tables" },
    { "sweep", cmd_sweep, "run each shape at several num_kv_splits: best split, tuning file" },
    { "compare", cmd_compare, "compare two result files: the regression gate" },
    { "plot", cmd_plot, "SVG charts of run, sweep and compare results" },
    { "check", cmd_check, "validate configs without a GPU" },
    { "floor", cmd_floor, "measure each case's read-once floor: its KV cache read once, cold" },
    { "info", cmd_info, "describe the GPU and measure its copy bandwidth and launch floor" },
};

int mb_die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mla-bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

static void usage(FILE *f)
{
    const size_t n = sizeof commands / sizeof commands[0];
    int width = 0;                 /* the longest name, so the summaries line up */
    for (size_t i = 0; i < n; i++) width = (int)strlen(commands[i].name) > width ? (int)strlen(commands[i].name) : width;
    fprintf(f, "usage: mla-bench COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "  %-*s  %s\n", width, commands[i].name, commands[i].summary);
    fprintf(f, "\n'mla-bench COMMAND --help' for a command's options; --version for the version.\n\n%s",
            mb_exit_codes_help);
}

int main(int argc, char **argv)
{
    if (argc < 2) { usage(stderr); return MB_EXIT_USAGE; }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return MB_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        mb_env_t env;
        mb_env_tool(&env);   /* the version and commit the build stamped (gpuenv.c) */
        printf("mla-bench %s (%s)\n", env.tool_version, env.git_commit);
        return MB_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    usage(stderr);
    return mb_die(MB_EXIT_USAGE, "unknown command '%s'", argv[1]);
}
