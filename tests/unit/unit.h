/* A small test driver: each suite is a function that runs its tests through RUN(); CHECK records a
 * failure with its place and goes on. main.c prints "N passed, N failed" last. */
#ifndef MB_UNIT_H
#define MB_UNIT_H

#include <stdio.h>

extern int unit_failed_checks;   /* checks failed in the test now running */
extern int unit_passed, unit_failed;
extern const char *unit_filter;  /* run only tests whose name contains this, if set */

int unit_begin(const char *name);
void unit_end(const char *name);

/* Runs build/mla-bench (or $MLA_BENCH) with args, GPUs hidden, both streams into out; the exit code. */
int unit_run_cli(const char *args, char *out, size_t outlen);
int unit_lines(const char *s);
/* What was written to f (a tmpfile), NUL-terminated and malloc'd; closes f. */
char *unit_read_back(FILE *f);
/* Removes a scratch directory and everything under it. */
void unit_remove_tree(const char *dir);

#define RUN(fn) do { if (unit_begin(#fn)) { fn(); unit_end(#fn); } } while (0)
#define CHECK(cond) do { if (!(cond)) { unit_failed_checks++; \
    fprintf(stderr, "  %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECKF(cond, ...) do { if (!(cond)) { unit_failed_checks++; \
    fprintf(stderr, "  %s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

#endif
