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
int cmd_floor(int argc, char **argv);

/* Prints "mla-bench: " + message to stderr and returns code. */
int mb_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A subcommand's option: a flag (sets *flag to 1) or one that takes a value (--name VALUE or
 * --name=VALUE: *value points at VALUE). A list of them ends with { NULL }. */
/* An option that may be given several times (--set): every value, in order. */
enum { MB_OPT_LIST_MAX = 32 };
typedef struct mb_optlist {
    const char *v[MB_OPT_LIST_MAX];
    int n;
} mb_optlist_t;
typedef struct mb_optdef {
    const char *name;
    int *flag;
    const char **value;
    mb_optlist_t *list;        /* instead of value: a repeatable option */
} mb_optdef_t;
/* Parses a subcommand's arguments against its options, in any order with its operands (arguments that
 * do not start with '-', and '-' itself). --help prints help, then the exit codes when exit_codes is
 * set, to stdout and returns -1. An unknown option or a missing value prints a usage error named after
 * cmd and returns MB_EXIT_USAGE. Otherwise the operands are moved, in their order, to the end of argv,
 * *first is the first of them (argc when there is none), and it returns 0. Option values are checked
 * by the command. */
int mb_parse_opts(const char *cmd, int argc, char **argv, const mb_optdef_t *defs, const char *help,
                  int exit_codes, int *first);
extern const char mb_exit_codes_help[];

#endif
