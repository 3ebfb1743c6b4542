/* mla-bench info: the GPU, its limits, and what the tool measures on it at start-up. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "gpuenv.h"
#include "tuning.h"

static const char help[] =
    "usage: mla-bench info\n"
    "Describes the GPU and measures device-to-device copy bandwidth and the launch floor (an empty kernel,\n"
    "timed as cases are), and names the default tuning file on this GPU (what `sweep` writes and\n"
    "\"tuned\" reads without --tuning).\n";

int cmd_info(int argc, char **argv)
{
    mb_gpu_t g;
    mb_env_t env;
    char err[512];
    const mb_optdef_t defs[] = { { NULL, NULL, NULL, NULL } };
    int first, rc0 = mb_parse_opts("info", argc, argv, defs, help, 1, &first);
    if (rc0) return rc0 < 0 ? MB_EXIT_OK : rc0;
    if (first < argc) return mb_die(MB_EXIT_USAGE, "info: unexpected argument '%s'", argv[first]);
    memset(&env, 0, sizeof env);
    mb_env_tool(&env);
    if (mb_gpu_open(&g, &env, err, sizeof err)) return mb_die(MB_EXIT_GPU, "%s", err);
    int rc = mb_gpu_measure(&g, &env, err, sizeof err);
    if (!rc) {
        char tuning[256];
        mb_env_print(stdout, &env);
        /* scripts name the sweep's file after the GPU with this, not with a copy of its naming rule */
        mb_tuning_default_path(env.device, tuning, sizeof tuning);
        printf("tuning        %s (default --tuning)\n", tuning);
    }
    mb_gpu_close(&g);
    return rc ? mb_die(MB_EXIT_GPU, "%s", err) : MB_EXIT_OK;
}
