/* mla-bench info: the GPU, its limits, and what the tool measures on it at start-up. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "gpuenv.h"

int cmd_info(int argc, char **argv)
{
    mb_gpu_t g;
    mb_env_t env;
    char err[512];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            fputs("usage: mla-bench info\nDescribes the GPU and measures device-to-device copy bandwidth and "
                  "the launch floor (an empty kernel, timed as cases are).\n", stdout);
            fputs(mb_exit_codes_help, stdout);
            return MB_EXIT_OK;
        }
        return mb_die(MB_EXIT_USAGE, "info: unknown argument '%s'", argv[i]);
    }
    memset(&env, 0, sizeof env);
    mb_env_tool(&env);
    if (mb_gpu_open(&g, &env, err, sizeof err)) return mb_die(MB_EXIT_GPU, "%s", err);
    int rc = mb_gpu_measure(&g, &env, err, sizeof err);
    if (!rc) mb_env_print(stdout, &env);
    mb_gpu_close(&g);
    return rc ? mb_die(MB_EXIT_GPU, "%s", err) : MB_EXIT_OK;
}
