/* Malformed input never crashes a reader. Every file the tool reads (configs, run / sweep / compare
 * results, tuning files) is mutated many times, deterministically, and fed to its reader: the reader
 * must either accept the text or fail with a message that names the file. A crash or a memory error
 * ends the test binary, so it fails loudly; `make test-robust` runs this suite under AddressSanitizer
 * and UndefinedBehaviorSanitizer, which also catch reads past a buffer that happen not to crash.
 * The mutations are the ones hand-edited and truncated files show: a file cut short, a byte changed,
 * a span deleted or repeated, and a JSON value swapped for another of a different type or range. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "compare.h"
#include "config.h"
#include "jsonio.h"
#include "plot.h"
#include "report.h"
#include "sweep.h"
#include "tuning.h"
#include "unit.h"

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static size_t rng_below(uint64_t *s, size_t n) { return n ? (size_t)(rng_next(s) % n) : 0; }

/* Values of other types and ranges than the ones a file holds: each reader must check what it gets. */
static const char *const k_values[] = {
    "-1", "0", "1", "1.5", "-0.5", "1e308", "-1e308", "1e-320", "2147483648", "9007199254740993", "300",
    "null", "true", "false", "\"\"", "\"x\"", "[]", "{}", "[1,2]", "{\"a\":1}", "\"-1\"", "\"auto\"",
};

/* Start and length of the k-th JSON scalar (number, string, true / false / null) in text, or -1. */
static long scalar_at(const char *t, size_t len, size_t k, size_t *n)
{
    size_t seen = 0;
    for (size_t i = 0; i < len; i++) {
        size_t j = i;
        if (t[i] == '"') {
            for (j = i + 1; j < len && t[j] != '"'; j++)
                if (t[j] == '\\') j++;
            j++;
        } else if (strchr("-0123456789tfn", t[i]) && (i == 0 || strchr("[{:, \n\t", t[i - 1]))) {
            while (j < len && !strchr(",]} \n\t", t[j])) j++;
        } else {
            continue;
        }
        if (seen++ == k) { *n = j - i; return (long)i; }
        i = j - 1;
    }
    return -1;
}

static size_t count_scalars(const char *t, size_t len)
{
    size_t n, k = 0;
    while (scalar_at(t, len, k, &n) >= 0) k++;
    return k;
}

/* One mutant of src (malloc'd, NUL-terminated). */
static char *mutate(const char *src, size_t len, size_t scalars, uint64_t *s)
{
    char *m = malloc(2 * len + 64);
    if (!m) return NULL;
    size_t at = rng_below(s, len), span = 1 + rng_below(s, len - at < 64 ? len - at : 64), out = 0;
    switch (rng_below(s, 8)) {   /* half the mutants swap a value: they parse, so they reach the checks */
    case 0:   /* cut short */
        memcpy(m, src, at), out = at;
        break;
    case 1: { /* a byte changed to one that means something in JSON */
        static const char bytes[] = "{}[]\":,-.0123456789eE \\x";
        memcpy(m, src, len), out = len;
        m[at] = bytes[rng_below(s, sizeof bytes - 1)];
        break;
    }
    case 2:   /* a span deleted */
        memcpy(m, src, at), memcpy(m + at, src + at + span, len - at - span), out = len - span;
        break;
    case 3:   /* a span repeated */
        memcpy(m, src, at + span), memcpy(m + at + span, src + at, len - at), out = len + span;
        break;
    default: { /* 4-7: a value swapped for another of another type or range */
        size_t n = 0;
        long p = scalars ? scalar_at(src, len, rng_below(s, scalars), &n) : -1;
        const char *v = k_values[rng_below(s, sizeof k_values / sizeof *k_values)];
        if (p < 0) { memcpy(m, src, len), out = len; break; }
        size_t vl = strlen(v);
        memcpy(m, src, (size_t)p), memcpy(m + p, v, vl), memcpy(m + p + vl, src + p + n, len - p - n);
        out = len - n + vl;
        break;
    }
    }
    m[out] = 0;
    return m;
}

typedef int (*reader_fn)(const char *path, char *err, size_t errlen);

static int read_config(const char *path, char *err, size_t errlen)
{
    mb_config_t cfg;
    int rc = mb_config_load(path, &cfg, err, errlen);
    mb_config_free(&cfg);
    return rc;
}

static int read_report(const char *path, char *err, size_t errlen)
{
    mb_report_t r;
    int rc = mb_report_read_json(path, &r, err, errlen);
    if (rc == 0) mb_report_free_read(&r);
    return rc;
}

static int read_compare(const char *path, char *err, size_t errlen)
{
    mb_compare_t c;
    int rc = mb_compare_read_json(path, &c, err, errlen);
    if (rc == 0) mb_compare_free(&c);
    return rc;
}

/* A tuning file is read whole at load and an entry when a case asks for it: ask for every key. */
static int read_tuning(const char *path, char *err, size_t errlen)
{
    mb_tuning_t t;
    int rc = mb_tuning_load(path, &t, err, errlen);
    if (rc) return rc;
    static const char *const keys[] = { "sm90-wgmma/b4-q1-h32-kv1024-causal", "sm90-wgmma/b128-q4-h16-kv8192-causal",
                                        "sm90-wgmma/b32-q4-h16-kv1024-causal", "no-such-key" };
    for (size_t i = 0; i < sizeof keys / sizeof *keys && rc == 0; i++)
        if (mb_tuning_best(&t, keys[i], err, errlen) < 0) rc = 2;
    mb_tuning_free(&t);
    return rc;
}

static int read_plot(const char *path, char *err, size_t errlen)
{
    char svg[64];
    snprintf(svg, sizeof svg, "/tmp/mb-robust-%d.svg", (int)getpid());
    int rc = mb_plot_file(path, svg, err, errlen);
    remove(svg);
    return rc;
}

/* Feeds n mutants of seed to read; returns how many the reader rejected (the rest it accepted). */
static int fuzz_file(const char *seed, reader_fn read, int n, uint64_t salt)
{
    char err[2048], path[64];
    char *src = mb_read_text(seed, err, sizeof err);
    CHECKF(src, "%s", err);
    if (!src) return 0;
    size_t len = strlen(src), scalars = count_scalars(src, len);
    CHECKF(read(seed, err, sizeof err) == 0, "the seed itself: %s", err);   /* the reader works at all */
    snprintf(path, sizeof path, "/tmp/mb-robust-%d.json", (int)getpid());
    uint64_t s = salt;
    int rejected = 0;
    for (int i = 0; i < n; i++) {
        char *m = mutate(src, len, scalars, &s);
        FILE *f = fopen(path, "w");
        CHECK(m && f);
        if (!m || !f) { free(m); if (f) fclose(f); break; }
        fputs(m, f);
        fclose(f);
        err[0] = 0;
        if (read(path, err, sizeof err) != 0) {
            rejected++;
            CHECKF(strstr(err, path) != NULL, "%s mutant %d: the message does not name the file: '%s'", seed, i, err);
            if (getenv("MB_ROBUST_VERBOSE")) fprintf(stderr, "%s\n", err);   /* which checks the mutants reach */
        }
        free(m);
    }
    remove(path);
    free(src);
    return rejected;
}

/* The mutations must reach the readers' checks, not stop at the JSON parser: a good share of mutants
 * must parse and still be rejected, and some must pass. */
static int mutants(void)
{
    const char *e = getenv("MB_ROBUST_MUTANTS");
    return e && atoi(e) > 0 ? atoi(e) : 400;
}

static void robust_configs(void)
{
    static const char *const seeds[] = { "configs/mixed-mla.json", "configs/paged.json", "configs/accuracy.json",
                                         "configs/uneven.json", "tests/gpu/correctness.json" };
    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
        int rej = fuzz_file(seeds[i], read_config, mutants(), 1 + i);
        CHECKF(rej > 0 && rej < mutants(), "%s: %d of %d rejected", seeds[i], rej, mutants());
    }
}

static void robust_run_results(void)
{
    int rej = fuzz_file("results/h200/gate/aa-1.json", read_report, mutants(), 11);
    CHECKF(rej > 0 && rej < mutants(), "%d of %d rejected", rej, mutants());
    rej = fuzz_file("results/h200/gate/aa-1.json", read_plot, mutants() / 4, 12);
    CHECK(rej > 0);
}

static void robust_compare_results(void)
{
    int rej = fuzz_file("results/h200/gate/aa.json", read_compare, mutants(), 21);
    CHECKF(rej > 0 && rej < mutants(), "%d of %d rejected", rej, mutants());
    rej = fuzz_file("results/h200/gate/aa.json", read_plot, mutants() / 4, 22);
    CHECK(rej > 0);
}

static void robust_sweep_results(void)
{
    int rej = fuzz_file("results/h200/sweep/mixed-mla-sweep.json", read_plot, mutants(), 31);
    CHECKF(rej > 0 && rej < mutants(), "%d of %d rejected", rej, mutants());
}

static void robust_tuning(void)
{
    int rej = fuzz_file("results/tuning/nvidia-h200.json", read_tuning, mutants(), 41);
    CHECKF(rej > 0 && rej < mutants(), "%d of %d rejected", rej, mutants());
}

/* The crash the suite found first: a sweep point without its split count. */
static void robust_sweep_point_fields(void)
{
    static const char *const cases[][2] = {
        { "{\"status\":\"pass\",\"median_us\":1}", "shapes[0].points[0].splits: missing" },
        { "{\"splits\":\"auto\",\"status\":\"pass\",\"median_us\":1}", "shapes[0].points[0].splits_max: missing" },
        { "{\"splits\":\"auto\",\"splits_max\":999,\"status\":\"pass\",\"median_us\":1}",
          "shapes[0].points[0].splits_max: expected an integer in [0, 256]" },
        { "{\"splits\":0,\"status\":\"pass\",\"median_us\":1}", "splits: expected \"auto\" or an integer in [1, 256]" },
        { "{\"splits\":4,\"status\":\"ok\",\"median_us\":1}", "status: expected pass, fail or error" },
        { "{\"splits\":4,\"status\":\"pass\",\"median_us\":-3}", "median_us: expected a time in µs (> 0) or null" },
    };
    char path[64], err[512];
    snprintf(path, sizeof path, "/tmp/mb-robust-sweep-%d.json", (int)getpid());
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (!f) return;
        fprintf(f, "{\"schema\":\"%s\",\"shapes\":[{\"shape\":\"s\",\"points\":[%s]}]}", MB_SWEEP_SCHEMA, cases[i][0]);
        fclose(f);
        err[0] = 0;
        CHECKF(read_plot(path, err, sizeof err) == 2 && strstr(err, path) && strstr(err, cases[i][1]), "%s: '%s'",
               cases[i][0], err);
    }
    remove(path);
}

void suite_robust(void)
{
    RUN(robust_sweep_point_fields);
    RUN(robust_configs);
    RUN(robust_run_results);
    RUN(robust_compare_results);
    RUN(robust_sweep_results);
    RUN(robust_tuning);
}
