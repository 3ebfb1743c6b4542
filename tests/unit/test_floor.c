/* The read-once floor's host side (src/floor.c): the bytes a case reads, the launch shapes, the fastest
 * shape, and the tables (the JSON read back, a case measured as another, the Markdown and CSV rows). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cJSON.h>
#include "floor.h"
#include "jsonio.h"
#include "unit.h"

static void case_bytes(void)
{
    int32_t kv[3] = { 1024, 1, 7 };
    mb_case_t c = { 0 };
    c.batch = 3;
    c.kv_lens = kv;
    CHECK(mb_floor_bytes(&c) == (int64_t)1032 * 576);
    /* b128-q1-kv8192: 604 MB, the "fp8 KV MB" column */
    int32_t big[128];
    for (int b = 0; b < 128; b++) big[b] = 8192;
    c.batch = 128;
    c.kv_lens = big;
    CHECK(mb_floor_bytes(&c) == INT64_C(603979776));
}

static void shapes(void)
{
    mb_floor_shape_t s[MB_FLOOR_SHAPES];
    mb_floor_shapes(132, s);
    int blocks128 = 0;
    for (int i = 0; i < MB_FLOOR_SHAPES; i++) {
        CHECKF(s[i].grid % 132 == 0 && s[i].grid >= 132 && s[i].median_us == 0.0, "shape %d: %d", i, s[i].grid);
        CHECK(s[i].block == 128 || s[i].block == 256 || s[i].block == 512);
        blocks128 += s[i].block == 128;
        for (int j = 0; j < i; j++) CHECKF(s[i].grid != s[j].grid || s[i].block != s[j].block, "shapes %d and %d", i, j);
    }
    CHECK(blocks128 == MB_FLOOR_GRIDS);
    mb_floor_shapes(0, s);             /* an SM count not known: still launchable */
    CHECK(s[0].grid >= 1);
}

static void best_shape(void)
{
    mb_floor_t f;
    memset(&f, 0, sizeof f);
    mb_floor_shapes(4, f.shapes);
    for (int i = 0; i < MB_FLOOR_SHAPES; i++) f.shapes[i].median_us = 20.0 - (i % 7);
    /* 14.0 first at i = 6, again at 13, 20: the first of equals */
    CHECK(mb_floor_best(&f) == 6);
    f.shapes[25].median_us = 3.0;
    CHECK(mb_floor_best(&f) == 25);
}

static char *slurp(const char *path)
{
    char err[256];
    char *t = mb_read_text(path, err, sizeof err);
    if (!t) fprintf(stderr, "  %s\n", err);
    return t;
}

static void tables(void)
{
    char dir[] = "/tmp/mb-floor-XXXXXX", path[128];
    if (!mkdtemp(dir)) { CHECKF(0, "mkdtemp"); return; }
    int32_t kv_a[2] = { 64, 64 }, kv_b[1] = { 128 };
    mb_case_t c[3];
    memset(c, 0, sizeof c);
    snprintf(c[0].name, sizeof c[0].name, "b2-kv64/mode=eager");
    snprintf(c[1].name, sizeof c[1].name, "b1-kv128, \"x|y\"");   /* CSV quoting, a Markdown '|' */
    snprintf(c[2].name, sizeof c[2].name, "b2-kv64/mode=graph");
    c[0].batch = 2, c[0].kv_lens = kv_a;
    c[1].batch = 1, c[1].kv_lens = kv_b;
    c[2].batch = 2, c[2].kv_lens = kv_a;
    mb_floor_t fl[3];
    memset(fl, 0, sizeof fl);
    for (int i = 0; i < 3; i++) {
        fl[i].c = &c[i];
        fl[i].bytes = mb_floor_bytes(&c[i]);
        fl[i].same_as = i == 0 ? -1 : 0;   /* all three read 73,728 bytes */
        mb_floor_shapes(132, fl[i].shapes);
        for (int k = 0; k < MB_FLOOR_SHAPES; k++) fl[i].shapes[k].median_us = 9.0 + k;
        fl[i].shapes[4].median_us = 4.096;
        fl[i].best = mb_floor_best(&fl[i]);
    }
    mb_env_t env;
    memset(&env, 0, sizeof env);
    snprintf(env.device, sizeof env.device, "NVIDIA H100 80GB HBM3");
    env.copy_tbps = 3.0;
    char err[256];
    CHECKF(mb_floor_write_all(fl, 3, &env, "configs/x.json", dir, "x-floor", err, sizeof err) == 0, "%s", err);

    snprintf(path, sizeof path, "%s/x-floor.json", dir);
    char *t = slurp(path);
    cJSON *root = t ? cJSON_Parse(t) : NULL;
    CHECK(root != NULL);
    if (root) {
        const cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
        const cJSON *dev = cJSON_GetObjectItemCaseSensitive(root, "device");
        CHECK(!strcmp(cJSON_GetObjectItemCaseSensitive(root, "schema")->valuestring, MB_FLOOR_SCHEMA));
        CHECK(dev && !strcmp(cJSON_GetObjectItemCaseSensitive(dev, "name")->valuestring, "NVIDIA H100 80GB HBM3"));
        CHECK(cJSON_GetArraySize(cases) == 3);
        const cJSON *c0 = cJSON_GetArrayItem(cases, 0), *c2 = cJSON_GetArrayItem(cases, 2);
        CHECK(cJSON_GetObjectItemCaseSensitive(c0, "floor_us")->valuedouble == 4.096);
        CHECK(cJSON_GetObjectItemCaseSensitive(c0, "kv_bytes")->valuedouble == 73728);
        CHECK(fabs(cJSON_GetObjectItemCaseSensitive(c0, "tbps")->valuedouble - 73728 / 4.096e-6 / 1e12) < 1e-12);
        CHECK(cJSON_GetObjectItemCaseSensitive(c0, "grid")->valuedouble == 132 * 6);
        CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(c0, "measured_as")));
        CHECK(!strcmp(cJSON_GetObjectItemCaseSensitive(c2, "measured_as")->valuestring, "b2-kv64/mode=eager"));
        CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c0, "shapes")) == MB_FLOOR_SHAPES);
    }
    cJSON_Delete(root);
    free(t);

    snprintf(path, sizeof path, "%s/x-floor.md", dir);
    t = slurp(path);
    CHECKF(t && strstr(t, "| b1-kv128, \"x\\|y\" | 0.1 | 4.10 | 0.02 | 0.6 | 792 x 128 | b2-kv64/mode=eager |"), "%s", t ? t : "");
    free(t);
    snprintf(path, sizeof path, "%s/x-floor.csv", dir);
    t = slurp(path);
    CHECKF(t && !strncmp(t, "case,kv_bytes,floor_us,tbps,pct_copy,grid,block,measured_as\n", 60) &&
               strstr(t, "\nb2-kv64/mode=eager,73728,4.096,0.018,0.6,792,128,\n") &&
               strstr(t, "\n\"b1-kv128, \"\"x|y\"\"\",73728,4.096,0.018,0.6,792,128,b2-kv64/mode=eager\n"), "%s", t ? t : "");
    free(t);
    unit_remove_tree(dir);
}

void suite_floor(void)
{
    RUN(case_bytes);
    RUN(shapes);
    RUN(best_shape);
    RUN(tables);
}
