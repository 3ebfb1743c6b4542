/* inputs of tests/gpu/peaked-scores.json (q_len given), as the tool generates them: fp8 codes + kv scale */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <stdint.h>
#include "numeric.h"
#define MB_DK 576
int main(int argc, char **argv) {
    int batch = 2, q_len = atoi(argv[1]), heads = 16, kv = 5000;
    uint64_t seed = 1;
    int64_t nq = (int64_t)batch * q_len * heads * MB_DK, nk = (int64_t)batch * kv * MB_DK;
    uint8_t *q8 = malloc(nq), *k8 = malloc(nk); float amax = 0;
    uint16_t *kb = malloc(nk * 2);
    for (int64_t i = 0; i < nq; i++) q8[i] = mb_f32_to_fp8(mb_bf16_to_f32(mb_gen_bf16(seed, MB_STREAM_Q, i, 3.0f)), 0);
    for (int64_t i = 0; i < nk; i++) { kb[i] = mb_gen_bf16(seed, MB_STREAM_KV, i, 20.0f); amax = fmaxf(amax, fabsf(mb_bf16_to_f32(kb[i]))); }
    float sc = amax / mb_fp8_max(0);
    for (int64_t i = 0; i < nk; i++) k8[i] = mb_f32_to_fp8(mb_bf16_to_f32(kb[i]) / sc, 0);
    FILE *f = fopen(argv[2], "wb"); fwrite(&sc, 4, 1, f); fwrite(q8, 1, nq, f); fwrite(k8, 1, nk, f); fclose(f);
    printf("scale %.9g amax %.9g\n", sc, amax);
    return 0;
}
