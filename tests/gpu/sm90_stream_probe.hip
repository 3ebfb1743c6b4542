/* A measurement probe, not a test (nothing here passes or fails): how fast 128 CTAs stream a KV cache
 * the size of b128-q1's (128 batches x 8192 tokens x 576 bytes, 604 MB) from a cold L2, by the way the
 * sm90 16-row walker loads it and by other ways. That shape streams 6-8 % under a plain read pass of
 * the same bytes (results/NOTES.md, thirty-seventh session), and neither a deeper stream (v129) nor L2
 * prefetches (v130) won it back; this probe found which trait of the access cost it. Before every pass the L2 is flushed as mla-bench's cold flush does it (a write of twice its
 * size, which leaves it full of dirty lines), and events time the pass alone. Each line: a variant,
 * the median of its passes in µs, and TB/s.
 *   ldg-sweep     1024 blocks x 256 threads, 16-byte loads sweeping the buffer together (the gate's
 *                 planted extra pass, kernels/timing.hip's read_all)
 *   ldg-own       one CTA of 512 threads a batch's region (4.7 MB), read front to back
 *   tma-box-S     one CTA a region, the decode's tile copy: one 3-D box (64 bytes x 64 rows x 9 slices,
 *                 64-byte swizzle, L2 fills promoted to 128 bytes) a 64-token tile, S stages in flight, no compute
 *   bulk-S        the same with one 1-D bulk copy of the tile's 36,864 contiguous bytes
 *   tma-box-4-l2-256, -l2-none   tma-box-4 with the L2 fills promoted to 256 bytes (the decode's map
 *                 until v131), or not at all
 *   -ef           with the decode's L2::evict_first policy (split plans load with it)
 *   q-*           a quarter of the buffer (151 MB), 32 tiles a CTA: b32-q1-kv8192-h16's four splits
 *   -clean        the flush read back before the pass, as mla-bench's "l2": "cold-clean": no write-backs
 * Its first run (2026-12-02, 256-byte promotion then) read the box at 3.85-3.94 TB/s, 128-byte
 * promotion 4.12-4.13, a 1-D bulk copy 4.16-4.19 and the read pass 4.03: hence v131 (results/NOTES.md).
 * Its second (thirty-eighth session): evict_first costs the long stream 7 % and gains the quarter-size
 * one 2.5 %, which runs at 3.2-3.3 TB/s by every method, promotion or not; after a clean flush the box
 * streams 4.40 and 4.03 TB/s, hint or not: the dirty lines cost each stream ~10 us, and they are all
 * of the hint's gain.
 *   build/sm90-stream-probe   (Hopper only; exit 4 on a GPU error) */
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include "../../kernels/common.h"
#include "../../kernels/sm90_wgmma.h"

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(4); } } while (0)

enum { REGIONS = 128, TILES = 128, TILE_ROWS = 64, ROW = 576, TILE_BYTES = TILE_ROWS * ROW, MAX_STAGES = 5 };
static const int64_t ROWS = (int64_t)REGIONS * TILES * TILE_ROWS;

__global__ void ldg_sweep(const uint4 *p, int64_t n16, uint32_t *sink)
{
    uint32_t acc = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n16; i += (int64_t)gridDim.x * blockDim.x) {
        uint4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) *sink = acc;   /* practically never true, but the compiler cannot know */
}

/* Block b reads region b front to back, four 16-byte loads a thread in flight. */
__global__ void ldg_own(const uint4 *p, int64_t region16, uint32_t *sink)
{
    const uint4 *r = p + blockIdx.x * region16;
    uint32_t acc = 0;
    for (int64_t i = threadIdx.x; i < region16; i += 4 * (int64_t)blockDim.x) {
        uint4 v[4];
#pragma unroll
        for (int k = 0; k < 4; k++) v[k] = i + k * blockDim.x < region16 ? r[i + k * blockDim.x] : make_uint4(0, 0, 0, 0);
#pragma unroll
        for (int k = 0; k < 4; k++) acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
    }
    if (acc == 0x9e3779b9u) *sink = acc;
}

__device__ __forceinline__ void bulk_load(uint32_t dst, const void *src, uint32_t bytes, uint64_t *bar)
{
    W9_ASM("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
           ::"r"(dst), "l"(src), "r"(bytes), "r"(w9_smem_addr(bar)) : "memory");
}

/* Block b streams region b's tiles through S stages: thread 0 issues a tile into a stage once the
 * tile before in that stage has landed, as the walkers do, with nothing computed in between. BOX: the
 * decode's 3-D box through the tensor map, else a 1-D bulk copy of the tile's contiguous bytes. */
template <bool BOX, bool EF = false>
__global__ void tma_stream(const __grid_constant__ CUtensorMap map, const uint8_t *kv, int stages, int tiles)
{
#if W9_ENABLED
    extern __shared__ uint8_t dyn[];
    __shared__ uint64_t bar[MAX_STAGES];
    uint8_t *st = dyn + ((1024 - (w9_smem_addr(dyn) & 1023)) & 1023);
    if (threadIdx.x != 0) return;
    for (int s = 0; s < stages; s++) w9_mbar_init(&bar[s]);
    w9_mbar_init_fence();
    const int row0 = blockIdx.x * tiles * TILE_ROWS;
    auto issue = [&](int t) {
        const int s = t % stages;
        w9_mbar_expect(&bar[s], TILE_BYTES);
        const uint32_t dst = w9_smem_addr(st + s * TILE_BYTES);
        if (BOX) w9_tma_load_tile(dst, w9_kv<EF>{ &map }, row0 + t * TILE_ROWS, &bar[s]);
        else bulk_load(dst, kv + (int64_t)(row0 + t * TILE_ROWS) * ROW, TILE_BYTES, &bar[s]);
    };
    for (int t = 0; t < stages && t < tiles; t++) issue(t);
    for (int t = 0; t < tiles; t++) {
        w9_mbar_wait(&bar[t % stages], (t / stages) & 1);
        if (t + stages < tiles) issue(t + stages);
    }
#endif
}

int main()
{
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    if (prop.major != 9) { fprintf(stderr, "sm90-stream-probe: needs a Hopper GPU (sm_90), found sm_%d%d\n", prop.major, prop.minor); return 4; }
    const size_t bytes = (size_t)ROWS * ROW, flush_bytes = 2 * (size_t)prop.l2CacheSize;
    uint8_t *kv, *flush;
    uint32_t *sink;
    CHECK(cudaMalloc(&kv, bytes));
    CHECK(cudaMalloc(&flush, flush_bytes));
    CHECK(cudaMalloc(&sink, 4));
    CHECK(cudaMemset(kv, 0x5a, bytes));
    CUtensorMap map, map256, map_none;
    int rc = w9_encode_kv_map(&map, kv, (uint64_t)ROWS);
    if (!rc) rc = w9_encode_kv_map(&map256, kv, (uint64_t)ROWS, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
    if (!rc) rc = w9_encode_kv_map(&map_none, kv, (uint64_t)ROWS, CU_TENSOR_MAP_L2_PROMOTION_NONE);
    if (rc) { fprintf(stderr, "sm90-stream-probe: cuTensorMapEncodeTiled: error %d\n", rc); return 4; }
    const int smem = MAX_STAGES * TILE_BYTES + 1024;
    CHECK(cudaFuncSetAttribute(tma_stream<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CHECK(cudaFuncSetAttribute(tma_stream<true, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CHECK(cudaFuncSetAttribute(tma_stream<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    printf("%s, %d SMs, L2 %d MB; %d regions x %d tiles x %d rows x %d bytes = %.0f MB; cold L2 (dirty flush) before each pass\n",
           prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, REGIONS, TILES, TILE_ROWS, ROW, bytes / 1e6);
    printf("%-22s %10s %8s\n", "variant", "median us", "TB/s");
    /* clean: the flush's lines read back before the pass (mla-bench's "cold-clean"), so that the pass
     * writes nothing back. */
    auto run = [&](const char *name, size_t moved, auto launch, bool clean = false) {
        std::vector<float> t;
        for (int i = 0; i < 17; i++) {
            CHECK(cudaMemsetAsync(flush, i & 0xff, flush_bytes));
            if (clean) {
                ldg_sweep<<<1024, 256>>>((const uint4 *)flush, (int64_t)(flush_bytes / 16), sink);
                CHECK(cudaGetLastError());
            }
            CHECK(cudaEventRecord(e0));
            launch();
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            float ms;
            CHECK(cudaEventElapsedTime(&ms, e0, e1));
            if (i >= 2) t.push_back(1000.0f * ms);   /* the first two warm the code and the TLB */
        }
        std::sort(t.begin(), t.end());
        const float med = t[t.size() / 2];
        printf("%-22s %10.1f %8.2f\n", name, med, moved / (med * 1e-6) / 1e12);
    };
    run("ldg-sweep", bytes, [&] { ldg_sweep<<<1024, 256>>>((const uint4 *)kv, (int64_t)(bytes / 16), sink); });
    run("ldg-own", bytes, [&] { ldg_own<<<REGIONS, 512>>>((const uint4 *)kv, (int64_t)(bytes / 16 / REGIONS), sink); });
    for (int s : { 2, 4, 5 }) {
        char name[16];
        snprintf(name, sizeof name, "tma-box-%d", s);
        run(name, bytes, [&] { tma_stream<true><<<REGIONS, 32, smem>>>(map, kv, s, TILES); });
        snprintf(name, sizeof name, "bulk-%d", s);
        run(name, bytes, [&] { tma_stream<false><<<REGIONS, 32, smem>>>(map, kv, s, TILES); });
    }
    run("tma-box-4-l2-256", bytes, [&] { tma_stream<true><<<REGIONS, 32, smem>>>(map256, kv, 4, TILES); });
    run("tma-box-4-l2-none", bytes, [&] { tma_stream<true><<<REGIONS, 32, smem>>>(map_none, kv, 4, TILES); });
    run("tma-box-4-ef", bytes, [&] { tma_stream<true, true><<<REGIONS, 32, smem>>>(map, kv, 4, TILES); });
    run("tma-box-4-ef-l2-256", bytes, [&] { tma_stream<true, true><<<REGIONS, 32, smem>>>(map256, kv, 4, TILES); });
    /* b32-q1-kv8192's stream: a quarter of the bytes, 32 tiles a CTA (its batches split four ways). */
    const size_t quarter = bytes / 4;
    run("q-ldg-sweep", quarter, [&] { ldg_sweep<<<1024, 256>>>((const uint4 *)kv, (int64_t)(quarter / 16), sink); });
    run("q-tma-box-4", quarter, [&] { tma_stream<true><<<REGIONS, 32, smem>>>(map, kv, 4, TILES / 4); });
    run("q-tma-box-4-ef", quarter, [&] { tma_stream<true, true><<<REGIONS, 32, smem>>>(map, kv, 4, TILES / 4); });
    run("q-tma-box-4-l2-256", quarter, [&] { tma_stream<true><<<REGIONS, 32, smem>>>(map256, kv, 4, TILES / 4); });
    run("q-tma-box-4-ef-l2-256", quarter, [&] { tma_stream<true, true><<<REGIONS, 32, smem>>>(map256, kv, 4, TILES / 4); });
    run("q-bulk-4", quarter, [&] { tma_stream<false><<<REGIONS, 32, smem>>>(map, kv, 4, TILES / 4); });
    run("tma-box-4-clean", bytes, [&] { tma_stream<true><<<REGIONS, 32, smem>>>(map, kv, 4, TILES); }, true);
    run("tma-box-4-ef-clean", bytes, [&] { tma_stream<true, true><<<REGIONS, 32, smem>>>(map, kv, 4, TILES); }, true);
    run("q-tma-box-4-clean", quarter, [&] { tma_stream<true><<<REGIONS, 32, smem>>>(map, kv, 4, TILES / 4); }, true);
    run("q-tma-box-4-ef-clean", quarter, [&] { tma_stream<true, true><<<REGIONS, 32, smem>>>(map, kv, 4, TILES / 4); }, true);
    return 0;
}
