/* Sweep bookkeeping on the host: shapes grouped, split lists chosen, best point and auto verdict, the
 * tables and the tuning file that "tuned" reads back. The GPU side is the runner's, tested on the device. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cJSON.h>
#include "config.h"
#include "sweep.h"
#include "tuning.h"
#include "unit.h"

static int parse(const char *json, mb_config_t *cfg)
{
    char err[512];
    int rc = mb_config_parse("t.json", json, cfg, err, sizeof err);
    if (rc) fprintf(stderr, "  %s\n", err);
    return rc;
}

static void groups_by_shape(void)
{
    mb_config_t cfg;
    mb_sweep_t sw;
    char err[256];
    CHECK(parse("{\"cases\":[{\"name\":\"a\",\"batch\":2,\"kv_len\":1000,\"num_kv_splits\":[1,4,2]},"
                "{\"name\":\"b\",\"batch\":3,\"kv_len\":100}]}", &cfg) == 0);
    CHECK(mb_sweep_build(&sw, &cfg, NULL, 0, 32, err, sizeof err) == 0);
    CHECK(sw.n_groups == 2);
    /* a: its own list, sorted, after auto */
    CHECK(!strcmp(sw.groups[0].name, "a") && sw.groups[0].n_points == 4);
    CHECK(sw.groups[0].points[0].splits == 0 && sw.groups[0].points[1].splits == 1 && sw.groups[0].points[3].splits == 4);
    CHECK(!strcmp(sw.groups[0].points[2].name, "a/splits=2") && !strcmp(sw.groups[0].points[0].name, "a/splits=auto"));
    /* b: no list, so auto-range: 100 tokens in 32-token tiles = 4 -> 1, 2, 4 */
    CHECK(sw.groups[1].n_points == 4 && sw.groups[1].points[3].splits == 4);
    CHECK(sw.n_points == 8 && sw.points_cfg.n_cases == 8 && sw.groups[1].point0 == 4);
    mb_sweep_free(&sw);
    /* --splits overrides every shape's list (deduplicated, sorted) */
    int list[] = { 8, 1, 8, 2 };
    CHECK(mb_sweep_build(&sw, &cfg, list, 4, 32, err, sizeof err) == 0);
    CHECK(sw.groups[0].n_points == 4 && sw.groups[1].points[1].splits == 1 && sw.groups[1].points[3].splits == 8);
    mb_sweep_free(&sw);
    mb_config_free(&cfg);
}

static void fake(mb_case_result_t *r, mb_case_status_t st, double med, int splits_max)
{
    r->status = st;
    r->time.n = 10;
    r->time.median = med;
    r->splits_max = splits_max;
}

static void best_and_auto_verdict(void)
{
    mb_config_t cfg;
    mb_sweep_t sw;
    char err[256];
    CHECK(parse("{\"cases\":[{\"name\":\"s\",\"batch\":2,\"kv_len\":4096,\"num_kv_splits\":[1,2,4,8]}]}", &cfg) == 0);
    CHECK(mb_sweep_build(&sw, &cfg, NULL, 0, 32, err, sizeof err) == 0);
    mb_sweep_group_t *g = &sw.groups[0];
    fake(&g->res[0], MB_CASE_PASS, 102.0, 4);   /* auto */
    fake(&g->res[1], MB_CASE_PASS, 300.0, 1);
    fake(&g->res[2], MB_CASE_PASS, 150.0, 2);
    fake(&g->res[3], MB_CASE_PASS, 100.0, 4);   /* best */
    fake(&g->res[4], MB_CASE_FAIL, 50.0, 8);    /* fastest, but wrong: never the best */
    sw.n_done = sw.n_points;
    mb_sweep_summarise(&sw);
    CHECK(g->best == 3);
    CHECK(g->speedup > 1.019 && g->speedup < 1.021);
    CHECK(g->auto_ok == 1 && sw.n_auto_ok == 1 && sw.n_compared == 1);
    g->res[0].time.median = 110.0;              /* 10 % off the best */
    mb_sweep_summarise(&sw);
    CHECK(g->auto_ok == 0 && sw.n_auto_ok == 0);
    sw.n_done = 2;                              /* interrupted after two points */
    mb_sweep_summarise(&sw);
    CHECK(g->best == 0);
    mb_sweep_free(&sw);
    mb_config_free(&cfg);
}

/* b4-q1-kv1024-h32 as the H200 swept it (results/h200/sweep/): its batches have 16 tiles, so asking 16,
 * 32 or 64 splits all give auto's plan, and the eager run timed that one plan at 23.5 (auto), 23.1,
 * 22.7 and 23.0 us. Repeats of a plan are not ranked: auto (the first) keeps it, and "tuned" names the
 * smallest count that gives it. Without plan ids the same times call auto 3.4 % off the best. */
static void repeated_plans_not_ranked(void)
{
    mb_config_t cfg;
    mb_sweep_t sw;
    mb_env_t env;
    char err[256], dir[] = "/tmp/mb-sweep-XXXXXX", path[512], key[160];
    CHECK(mkdtemp(dir) != NULL);
    memset(&env, 0, sizeof env);
    snprintf(env.device, sizeof env.device, "NVIDIA H200");
    CHECK(parse("{\"cases\":[{\"name\":\"s\",\"batch\":4,\"kv_len\":1024,\"num_kv_splits\":[4,16,32,64]}]}", &cfg) == 0);
    CHECK(mb_sweep_build(&sw, &cfg, NULL, 0, 64, err, sizeof err) == 0);
    mb_sweep_group_t *g = &sw.groups[0];
    const double med[5] = { 23.5, 27.5, 23.1, 22.7, 23.0 };
    const uint64_t id[5] = { 0xa, 0xb, 0xa, 0xa, 0xa };
    for (int p = 0; p < 5; p++) fake(&g->res[p], MB_CASE_PASS, med[p], p == 1 ? 4 : 16);
    sw.n_done = sw.n_points;
    mb_sweep_summarise(&sw);                    /* no ids (a file that predates them): every point ranked */
    CHECK(g->best == 3 && g->auto_ok == 0);
    for (int p = 0; p < 5; p++) g->res[p].plan_id = id[p];
    mb_sweep_summarise(&sw);
    CHECK(g->same[0] == -1 && g->same[1] == -1 && g->same[2] == 0 && g->same[3] == 0 && g->same[4] == 0);
    CHECK(g->best == 0 && g->auto_ok == 1 && g->speedup == 1.0);
    char *table = NULL;
    size_t tn = 0;
    FILE *mf = open_memstream(&table, &tn);
    mb_sweep_print(mf, &sw, 0);
    fclose(mf);
    CHECKF(strstr(table, "=22.7") && strstr(table, "16:*23.5"), "%s", table);
    free(table);
    snprintf(path, sizeof path, "%s/tuning.json", dir);
    CHECK(mb_sweep_update_tuning(&sw, "sm90", env.device, path, err, sizeof err) == 0);
    mb_tuning_t t;
    mb_tuning_key(&cfg.cases[0], "sm90", key, sizeof key);
    CHECK(mb_tuning_load(path, &t, err, sizeof err) == 0);
    CHECKF(mb_tuning_best(&t, key, err, sizeof err) == 16, "tuned %d", mb_tuning_best(&t, key, err, sizeof err));
    mb_tuning_free(&t);
    mb_sweep_free(&sw);
    mb_config_free(&cfg);
}

static void tables_and_tuning_file(void)
{
    mb_config_t cfg;
    mb_sweep_t sw;
    mb_env_t env;
    char err[256], dir[] = "/tmp/mb-sweep-XXXXXX", path[512];
    CHECK(mkdtemp(dir) != NULL);
    memset(&env, 0, sizeof env);
    snprintf(env.device, sizeof env.device, "NVIDIA H200");
    CHECK(parse("{\"cases\":[{\"name\":\"s\",\"batch\":2,\"kv_len\":4096,\"num_kv_splits\":[2,8]}]}", &cfg) == 0);
    CHECK(mb_sweep_build(&sw, &cfg, NULL, 0, 32, err, sizeof err) == 0);
    fake(&sw.groups[0].res[0], MB_CASE_PASS, 120.0, 4);
    fake(&sw.groups[0].res[1], MB_CASE_PASS, 130.0, 2);
    fake(&sw.groups[0].res[2], MB_CASE_PASS, 90.0, 8);
    sw.n_done = sw.n_points;
    mb_sweep_summarise(&sw);
    CHECK(mb_sweep_write_all(&sw, &env, dir, "x-sweep", 0, err, sizeof err) == 0);
    snprintf(path, sizeof path, "%s/x-sweep.json", dir);
    FILE *f = fopen(path, "r");
    char buf[8192] = "";
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = '\0';
    cJSON *root = cJSON_Parse(buf);
    CHECK(root && !strcmp(cJSON_GetObjectItem(root, "schema")->valuestring, MB_SWEEP_SCHEMA));
    cJSON *shape = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "shapes"), 0);
    CHECK(shape && cJSON_GetObjectItem(shape, "best_splits")->valueint == 8);
    cJSON_Delete(root);

    /* The tuning file: written, merged, read back by key; a second shape does not erase the first. */
    snprintf(path, sizeof path, "%s/tuning/nvidia-h200.json", dir);
    CHECK(mb_sweep_update_tuning(&sw, "sm90", env.device, path, err, sizeof err) == 0);
    mb_tuning_t t;
    char key[160];
    mb_tuning_key(&cfg.cases[0], "sm90", key, sizeof key);
    CHECK(!strcmp(key, "sm90/b2-q1-h16-kv4096-causal"));
    /* a paged shape is keyed apart from the flat one */
    char paged_key[160];
    cfg.cases[0].page_size = 64;
    cfg.cases[0].page_order = MB_PAGES_CONTIGUOUS;
    mb_tuning_key(&cfg.cases[0], "sm90", paged_key, sizeof paged_key);
    CHECKF(!strcmp(paged_key, "sm90/b2-q1-h16-kv4096-causal-page64-contiguous"), "%s", paged_key);
    cfg.cases[0].page_size = 0;
    CHECK(mb_tuning_load(path, &t, err, sizeof err) == 0 && mb_tuning_best(&t, key, err, sizeof err) == 8);
    CHECK(mb_tuning_best(&t, "sm90/b9-q1-h16-kv1-causal", err, sizeof err) == 0);
    CHECK(mb_tuning_set(&t, "other", env.device, 3, NULL, NULL, 0, 1, 1.0) == 0 && mb_tuning_save(&t, err, sizeof err) == 0);
    mb_tuning_free(&t);
    CHECK(mb_tuning_load(path, &t, err, sizeof err) == 0 && mb_tuning_best(&t, key, err, sizeof err) == 8 && mb_tuning_best(&t, "other", err, sizeof err) == 3);
    mb_tuning_free(&t);
    /* A missing file is an empty table; a file of another kind is refused with its path. */
    snprintf(path, sizeof path, "%s/none.json", dir);
    CHECK(mb_tuning_load(path, &t, err, sizeof err) == 0 && mb_tuning_best(&t, key, err, sizeof err) == 0);
    mb_tuning_free(&t);
    snprintf(path, sizeof path, "%s/x-sweep.json", dir);
    CHECK(mb_tuning_load(path, &t, err, sizeof err) == 2 && strstr(err, "x-sweep.json: not a tuning file"));
    /* A hand-edited entry whose count no config could ask for is refused, naming the file and field. */
    static const char *const bad[] = { "0", "257", "2.5", "1e300", "\"8\"", "null" };
    snprintf(path, sizeof path, "%s/bad-tuning.json", dir);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        f = fopen(path, "w");
        CHECK(f != NULL);
        if (!f) break;
        fprintf(f, "{\"schema\":\"%s\",\"entries\":{\"k\":{\"best_splits\":%s},\"ok\":{\"best_splits\":256}}}",
                MB_TUNING_SCHEMA, bad[i]);
        fclose(f);
        CHECK(mb_tuning_load(path, &t, err, sizeof err) == 0);
        CHECK(mb_tuning_best(&t, "ok", err, sizeof err) == 256);
        CHECKF(mb_tuning_best(&t, "k", err, sizeof err) == -1 && strstr(err, "bad-tuning.json: entries[\"k\"].best_splits: "
                                                                              "expected integer in [1, 256], got"),
               "%s: %s", bad[i], err);
        mb_tuning_free(&t);
    }
    mb_tuning_default_path("NVIDIA H200", path, sizeof path);
    CHECK(!strcmp(path, "results/tuning/nvidia-h200.json"));
    mb_sweep_free(&sw);
    mb_config_free(&cfg);
}

static void tuned_in_config(void)
{
    mb_config_t cfg;
    CHECK(parse("{\"cases\":[{\"batch\":2,\"kv_len\":64,\"num_kv_splits\":\"tuned\"}]}", &cfg) == 0);
    CHECK(cfg.cases[0].splits == MB_SPLITS_TUNED);
    mb_config_free(&cfg);
}

void suite_sweep(void)
{
    RUN(groups_by_shape);
    RUN(best_and_auto_verdict);
    RUN(repeated_plans_not_ranked);
    RUN(tables_and_tuning_file);
    RUN(tuned_in_config);
}
