/* A measurement probe, not a test (nothing here passes or fails): how fast a CTA of the 32-row walker
 * can write its unit's rows (32 rows x 512 dims, 2 bytes each: 32 KB, rows 1,024 bytes apart), by the
 * walker's own store pattern and by others. The walker's traces put ~0.9 µs between its row sums and
 * its last store's issue on b32-q1-kv1024 (128 CTAs) and b4-q1 (64 CTAs): 32 KB a CTA at ~19 bytes a
 * cycle, far under what the L2 takes from 64 SMs. Each of a warp's 4-byte stores there covers 4 rows
 * x 32 bytes (the accumulators' layout: 4 rows by lane % 4, 16 dims by lane / 4), so a CTA's unit is
 * 1,024 line pieces; the question is whether the count of pieces, not the bytes, sets the time.
 *   pairs      the walker's: 32 4-byte stores a thread, each warp instruction 4 rows x 32 bytes
 *   pairs8     the walker's pairs, each lane's two rows' pairs exchanged with lane ^ 4 (the lane of the
 *              next 2 dims), so that 16 8-byte stores a thread each write 4 dims of one row: a warp
 *              instruction 8 rows x 32 bytes (v163's pattern)
 *   row128     32 4-byte stores a thread, each warp instruction 128 contiguous bytes of one row
 *   row512     8 16-byte stores a thread, each warp instruction 512 contiguous bytes of one row
 *   bulk       the walker's pattern into shared memory, then each warpgroup's half rows (512 bytes,
 *              32 of them) by 1-D bulk copies, one a lane of the warpgroup's first warp
 * Each line: a variant, its CTAs, the median over the CTAs of the time from their start to their last
 * store's issue (bulk: to the copies' end, `wait_group 0`) in µs, and the median kernel time by
 * events (launch included, ~3 µs) over 21 launches, each after a write of twice the L2 (as
 * mla-bench's cold flush leaves it: full of dirty lines).
 * Its first runs (fifty-third session, two H100s; the global timer ticks in 32 ns): the walker's pairs
 * 0.48 / 0.54 µs at 64 / 128 CTAs, pairs8 0.70 / 0.74 (and its kernel 0.1-0.2 µs later: v163 lost
 * 3-5 % on the 32-row shapes), 128-byte rows 0.45 / 0.51, 512-byte rows 0.32 / 0.32, whose kernels end
 * 0.2-0.3 µs before the pairs'. The cost follows neither the store count nor the bytes alone.
 *   build/sm90-store-probe   (Hopper only; exit 4 on a GPU error) */
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include "../../kernels/common.h"
#include "../../kernels/sm90_wgmma.h"

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(4); } } while (0)

enum { ROWS = 32, DIMS = 512, UNIT_BYTES = ROWS * DIMS * 2, THREADS = 256, RUNS = 21 };
enum { PAIRS, PAIRS8, ROW128, ROW512, BULK, VARIANTS };
static const char *const names[VARIANTS] = { "pairs", "pairs8", "row128", "row512", "bulk" };

__device__ __forceinline__ uint64_t gtime()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
    return t;
}

/* The walker's pairs (sm90_unit_rs.h's each_pair): thread (warpgroup w, warp, lane g*4+t) writes row
 * 8j + 2t + cc, dims 256 w + 64 mb + 16 warp + 2g and the next, for j < 4, cc < 2, mb < 4. */
template <class Store>
__device__ __forceinline__ void walker_pairs(Store &&store)
{
    const int wg = threadIdx.x / 128, warp = threadIdx.x % 128 / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int j = 0; j < 4; j++)
#pragma unroll
        for (int cc = 0; cc < 2; cc++)
#pragma unroll
            for (int mb = 0; mb < 4; mb++)
                store(8 * j + 2 * t + cc, 256 * wg + 64 * mb + 16 * warp + 2 * g, 0x3f803f80u + j + cc + mb);
}

template <int V>
__global__ void __launch_bounds__(THREADS) store_unit(uint16_t *out, uint32_t *ns)
{
    extern __shared__ __align__(128) uint8_t smem[];
    uint8_t *unit = (uint8_t *)out + (int64_t)blockIdx.x * UNIT_BYTES;
    __syncthreads();
    const uint64_t t0 = gtime();
    if (V == PAIRS) {
        walker_pairs([&](int r, int d, uint32_t v) { *(uint32_t *)(unit + r * DIMS * 2 + d * 2) = v; });
    } else if (V == PAIRS8) {
        const int wg = threadIdx.x / 128, warp = threadIdx.x % 128 / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
        const bool odd = g & 1;
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int mb = 0; mb < 4; mb++) {
                const uint32_t a0 = 0x3f803f80u + j + mb, a1 = a0 + 1;   /* rows 8j + 2t and 8j + 2t + 1 */
                const uint32_t other = __shfl_xor_sync(0xffffffffu, odd ? a0 : a1, 4);
                const int row = 8 * j + 2 * t + odd, d = 256 * wg + 64 * mb + 16 * warp + 2 * g - 2 * odd;
                *(uint2 *)(unit + row * DIMS * 2 + d * 2) = odd ? make_uint2(other, a1) : make_uint2(a0, other);
            }
    } else if (V == ROW128) {
        /* warp instruction k of warp w: row (8 w + k / 4) % 32, bytes 128 (k % 4) ... of its 1,024 */
        const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
        for (int k = 0; k < 32; k++) {
            const int row = (w * 4 + k / 8) % ROWS, piece = k % 8;
            *(uint32_t *)(unit + row * DIMS * 2 + 128 * piece + 4 * lane) = 0x3f803f80u + k;
        }
    } else if (V == ROW512) {
        const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
        for (int k = 0; k < 8; k++) {
            const int row = (w * 4 + k / 2) % ROWS, half = k % 2;
            *(uint4 *)(unit + row * DIMS * 2 + 512 * half + 16 * lane) = make_uint4(k, k + 1, k + 2, k + 3);
        }
    } else {
        walker_pairs([&](int r, int d, uint32_t v) { *(uint32_t *)(smem + r * DIMS * 2 + d * 2) = v; });
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   /* the writes, for the bulk copies */
        const int wg = threadIdx.x / 128;
        asm volatile("bar.sync %0, 128;" ::"r"(1 + wg) : "memory");
        if (threadIdx.x % 128 < 32) {
            const int row = threadIdx.x % 32;
            const uint32_t src = (uint32_t)__cvta_generic_to_shared(smem + row * DIMS * 2 + 512 * wg);
            asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 512;"
                         ::"l"(unit + row * DIMS * 2 + 512 * wg), "r"(src) : "memory");
            asm volatile("cp.async.bulk.commit_group;" ::: "memory");
            asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) ns[blockIdx.x] = (uint32_t)(gtime() - t0);
}

typedef void (*kernel_t)(uint16_t *, uint32_t *);
static const kernel_t kernels[VARIANTS] = { store_unit<PAIRS>, store_unit<PAIRS8>, store_unit<ROW128>, store_unit<ROW512>,
                                            store_unit<BULK> };

int main(void)
{
    int dev = 0, l2 = 0, major = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    if (major != 9) { fprintf(stderr, "sm90-store-probe: needs a Hopper GPU (compute capability 9.x)\n"); return 4; }
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    const int max_ctas = 132;
    uint16_t *out;
    uint32_t *ns;
    uint8_t *flush;
    CHECK(cudaMalloc(&out, (size_t)max_ctas * UNIT_BYTES));
    CHECK(cudaMalloc(&ns, max_ctas * sizeof(uint32_t)));
    CHECK(cudaMalloc(&flush, 2 * (size_t)l2));
    CHECK(cudaFuncSetAttribute(store_unit<BULK>, cudaFuncAttributeMaxDynamicSharedMemorySize, UNIT_BYTES));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    printf("variant  CTAs  store µs (median CTA)  kernel µs (events)\n");
    const int ctas[] = { 64, 128 };
    for (int c : ctas)
        for (int v = 0; v < VARIANTS; v++) {
            std::vector<float> kt, st;
            for (int run = 0; run < RUNS + 1; run++) {
                CHECK(cudaMemsetAsync(flush, run & 0xff, 2 * (size_t)l2));
                CHECK(cudaEventRecord(e0));
                kernels[v]<<<c, THREADS, v == BULK ? UNIT_BYTES : 0>>>(out, ns);
                CHECK(cudaGetLastError());
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                if (run == 0) continue;    /* module load and first touch */
                float ms;
                CHECK(cudaEventElapsedTime(&ms, e0, e1));
                kt.push_back(1e3f * ms);
                std::vector<uint32_t> h(c);
                CHECK(cudaMemcpy(h.data(), ns, c * sizeof(uint32_t), cudaMemcpyDeviceToHost));
                std::sort(h.begin(), h.end());
                st.push_back(h[c / 2] * 1e-3f);
            }
            std::sort(kt.begin(), kt.end());
            std::sort(st.begin(), st.end());
            printf("%-8s %5d %22.3f %19.2f\n", names[v], c, st[RUNS / 2], kt[RUNS / 2]);
        }
    return 0;
}
