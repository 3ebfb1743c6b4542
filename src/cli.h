/* Subcommands, exit codes and the small helpers they share. */
#ifndef MB_CLI_H
#define MB_CLI_H

#include <stdio.h>

/* Documented exit codes (--help, README). */
enum {
    MB_EXIT_OK = 0,
    MB_EXIT_CHECK_FAILED = 1,
    MB_EXIT_USAGE = 2,          /* bad arguments or config */
    MB_EXIT_REGRESSION = 3,     /* performance regression found by a gate */
    MB_EXIT_GPU = 4,            /* GPU or runtime error, including "no GPU" */
    MB_EXIT_INTERRUPTED = 130   /* Ctrl-C: tables of the finished cases were still written */
};

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_plot(int argc, char **argv);

/* Prints "mla-bench: " + message to stderr and returns code. */
int mb_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 1 if argv[*i] is --name VALUE or --name=VALUE (advancing *i past it); VALUE in *val. */
int mb_opt(int argc, char **argv, int *i, const char *name, const char **val);
extern const char mb_exit_codes_help[];

#endif
