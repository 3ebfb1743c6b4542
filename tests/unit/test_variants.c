/* The q_quant and plan variants in configs: accepted values, grid expansion, and the combination that
 * cannot be measured (a plan rebuilt on every call inside a graph replay). */
#include <string.h>
#include "config.h"
#include "unit.h"

static int parse(const char *json, mb_config_t *cfg, char *err, size_t n)
{
    return mb_config_parse("v.json", json, cfg, err, n);
}

static void variants_parse_and_expand(void)
{
    mb_config_t cfg;
    char err[512];
    CHECKF(parse("{\"cases\":[{\"name\":\"a\",\"batch\":2,\"kv_len\":64,\"mode\":\"eager\","
                 "\"q_quant\":[\"cast\",\"amax\",\"none\"],\"plan\":[\"cached\",\"rebuild\"]}]}", &cfg, err, sizeof err) == 0,
           "%s", err);
    CHECK(cfg.n_cases == 6);
    CHECK(cfg.cases[0].q_quant == MB_Q_CAST && !cfg.cases[0].plan_rebuild);
    CHECK(cfg.cases[1].q_quant == MB_Q_CAST && cfg.cases[1].plan_rebuild);
    CHECK(cfg.cases[5].q_quant == MB_Q_NONE && cfg.cases[5].plan_rebuild);
    CHECKF(!strcmp(cfg.cases[3].name, "a/q_quant=amax/plan=rebuild"), "%s", cfg.cases[3].name);
    CHECK(!strcmp(mb_q_quant_name(MB_Q_AMAX), "amax"));
    mb_config_free(&cfg);
    /* defaults: the cast-free path with a cached plan */
    CHECK(parse("{\"cases\":[{\"batch\":1,\"kv_len\":8}]}", &cfg, err, sizeof err) == 0);
    CHECK(cfg.cases[0].q_quant == MB_Q_CAST && !cfg.cases[0].plan_rebuild);
    mb_config_free(&cfg);
}

static void variants_errors(void)
{
    mb_config_t cfg;
    char err[512];
    CHECK(parse("{\"cases\":[{\"batch\":1,\"kv_len\":8,\"q_quant\":\"fp4\"}]}", &cfg, err, sizeof err) == 2);
    CHECKF(strstr(err, "v.json: cases[0].q_quant: expected \"cast\", \"amax\" or \"none\", got \"fp4\""), "%s", err);
    CHECK(parse("{\"cases\":[{\"batch\":1,\"kv_len\":8,\"plan\":\"sometimes\"}]}", &cfg, err, sizeof err) == 2);
    CHECKF(strstr(err, "cases[0].plan: expected \"cached\" or \"rebuild\""), "%s", err);
    /* the default mode is graph: a rebuilt plan there is refused, naming the fix */
    CHECK(parse("{\"cases\":[{\"batch\":1,\"kv_len\":8,\"plan\":\"rebuild\"}]}", &cfg, err, sizeof err) == 2);
    CHECKF(strstr(err, "v.json: cases[0]") && strstr(err, "needs \"mode\": \"eager\""), "%s", err);
}

void suite_variants(void)
{
    RUN(variants_parse_and_expand);
    RUN(variants_errors);
}
