/* A measurement probe, not a test (nothing here passes or fails): how fast the tensor cores run the
 * wgmma shapes the sm90 walkers issue, and the shapes another layout would issue, one SM at a time
 * (a CTA on every SM, the whole chip busy, as in a decode call). The walkers' tiles take ~2 µs where
 * their wgmmas at the datasheet's rate would take ~0.8 (results/NOTES.md); whether the small N of
 * their wgmmas (32 rows a warpgroup) costs rate, and whether a register A operand does, decides what
 * a faster 64-row walker looks like. Each line: one variant, 1 or 2 warpgroups each issuing chains of
 * C wgmmas into one accumulator (one commit and wait a chain: C = 1 is the round trip), cycles a
 * wgmma per warpgroup, and the SM's FLOP a cycle against the dense peak (8192 fp8, 4096 f16; H100/
 * H200 datasheet at its boost clock). Operands are zeros: the rate does not depend on values. Then the
 * 64-row scorer's f16 stream (stream below), one line a way of grouping its 36 wgmmas, and the long
 * 64-row units' mix of score steps and P V (mix below).
 *   build/sm90-wgmma-rate            (Hopper only; exit 4 on a GPU error) */
#include <stdio.h>
#include <stdlib.h>
#include "../../kernels/common.h"
#include "../../kernels/sm90_wgmma.h"

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(4); } } while (0)

#define R4(o) "+f"(d[o + 0]), "+f"(d[o + 1]), "+f"(d[o + 2]), "+f"(d[o + 3])
#define R8(o) R4(o), R4(o + 4)
#define R16(o) R8(o), R8(o + 8)
#define R32(o) R16(o), R16(o + 16)
#define R64(o) R32(o), R32(o + 32)
#define R128(o) R64(o), R64(o + 64)

/* m64nNk32 e4m3 (both operands in shared memory); m64nNk16 f16 with B in shared memory and A there
 * (ss) or in registers (rs, REG_A); TB = 1: B MN-major (a V tile as stored, dims contiguous). ACC:
 * the accumulator's floats a thread. */
template <int N> struct fp8_ss;
template <int N, int TB> struct f16_ss;
template <int N, int TB> struct f16_rs;
template <> struct fp8_ss<32> {
    static constexpr double flops = 2.0 * 64 * 32 * 32;
    static constexpr int ACC = 16;
    static constexpr bool REG_A = false;
    __device__ __forceinline__ static void mma(float *d, uint64_t a, uint64_t b)
    {
        W9_ASM("{\n.reg .pred p;\nsetp.eq.u32 p, 1, 1;\n"
               "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, %16, %17, p, 1, 1;\n}\n"
               : R16(0) : "l"(a), "l"(b));
    }
};
template <> struct fp8_ss<64> {
    static constexpr double flops = 2.0 * 64 * 64 * 32;
    static constexpr int ACC = 32;
    static constexpr bool REG_A = false;
    __device__ __forceinline__ static void mma(float *d, uint64_t a, uint64_t b)
    {
        W9_ASM("{\n.reg .pred p;\nsetp.eq.u32 p, 1, 1;\n"
               "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1;\n}\n"
               : R32(0) : "l"(a), "l"(b));
    }
};
template <> struct fp8_ss<256> {
    static constexpr double flops = 2.0 * 64 * 256 * 32;
    static constexpr int ACC = 128;
    static constexpr bool REG_A = false;
    __device__ __forceinline__ static void mma(float *d, uint64_t a, uint64_t b)
    {
        W9_ASM("{\n.reg .pred p;\nsetp.eq.u32 p, 1, 1;\n"
               "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, %128, %129, p, 1, 1;\n}\n"
               : R128(0) : "l"(a), "l"(b));
    }
};
template <int TB> struct f16_ss<64, TB> {
    static constexpr double flops = 2.0 * 64 * 64 * 16;
    static constexpr int ACC = 32;
    static constexpr bool REG_A = false;
    __device__ __forceinline__ static void mma(float *d, uint64_t a, uint64_t b)
    {
        W9_ASM("{\n.reg .pred p;\nsetp.eq.u32 p, 1, 1;\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, %34;\n}\n"
               : R32(0) : "l"(a), "l"(b), "n"(TB));
    }
};
template <int TB> struct f16_ss<256, TB> {
    static constexpr double flops = 2.0 * 64 * 256 * 16;
    static constexpr int ACC = 128;
    static constexpr bool REG_A = false;
    __device__ __forceinline__ static void mma(float *d, uint64_t a, uint64_t b)
    {
        W9_ASM("{\n.reg .pred p;\nsetp.eq.u32 p, 1, 1;\n"
               "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, %128, %129, p, 1, 1, 0, %130;\n}\n"
               : R128(0) : "l"(a), "l"(b), "n"(TB));
    }
};
template <int TB> struct f16_rs<16, TB> {
    static constexpr double flops = 2.0 * 64 * 16 * 16;
    static constexpr int ACC = 8;
    static constexpr bool REG_A = true;
    __device__ __forceinline__ static void mma(float *d, const uint32_t *a, uint64_t b)
    {
        W9_ASM("{\n.reg .pred p;\nsetp.eq.u32 p, 1, 1;\n"
               "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, p, 1, 1, %13;\n}\n"
               : R8(0) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "n"(TB));
    }
};
template <int TB> struct f16_rs<32, TB> {
    static constexpr double flops = 2.0 * 64 * 32 * 16;
    static constexpr int ACC = 16;
    static constexpr bool REG_A = true;
    __device__ __forceinline__ static void mma(float *d, const uint32_t *a, uint64_t b)
    {
        W9_ASM("{\n.reg .pred p;\nsetp.eq.u32 p, 1, 1;\n"
               "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, {%16,%17,%18,%19}, %20, p, 1, 1, %21;\n}\n"
               : R16(0) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "n"(TB));
    }
};
template <int TB> struct f16_rs<64, TB> {
    static constexpr double flops = 2.0 * 64 * 64 * 16;
    static constexpr int ACC = 32;
    static constexpr bool REG_A = true;
    __device__ __forceinline__ static void mma(float *d, const uint32_t *a, uint64_t b)
    {
        W9_ASM("{\n.reg .pred p;\nsetp.eq.u32 p, 1, 1;\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, 1, 1, %37;\n}\n"
               : R32(0) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "n"(TB));
    }
};
template <int TB> struct f16_rs<256, TB> {
    static constexpr double flops = 2.0 * 64 * 256 * 16;
    static constexpr int ACC = 128;
    static constexpr bool REG_A = true;
    __device__ __forceinline__ static void mma(float *d, const uint32_t *a, uint64_t b)
    {
        W9_ASM("{\n.reg .pred p;\nsetp.eq.u32 p, 1, 1;\n"
               "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, {%128,%129,%130,%131}, %132, p, 1, 1, %133;\n}\n"
               : R128(0) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "n"(TB));
    }
};


#define SMEM_BYTES (96 * 1024)      /* A at 0, B at 32 KB: any of the shapes' operands fits in 32 KB */

/* Every kernel's operands: the block's shared memory zeroed, and visible to the wgmmas (async proxy). */
__device__ __forceinline__ void zero_operands(uint8_t *smem)
{
    for (int i = threadIdx.x; i < SMEM_BYTES / 16; i += blockDim.x) ((uint4 *)smem)[i] = make_uint4(0, 0, 0, 0);
    w9_fence_proxy();
    __syncthreads();
}

template <class W, int C> __global__ void __launch_bounds__(256, 1) rate(int reps, long long *cycles, long long *ns)
{
    extern __shared__ __align__(1024) uint8_t smem[];
    zero_operands(smem);
    float d[W::ACC];
#pragma unroll
    for (int i = 0; i < W::ACC; i++) d[i] = 0.0f;
    uint32_t a[4] = { 0, 0, 0, 0 };
    const uint32_t base = w9_smem_addr(smem);
    const uint64_t da = w9_desc(base, 256), db = w9_desc(base + 32768, 256);
    __syncthreads();
    long long t0 = clock64(), g0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    for (int r = 0; r < reps; r++) {
        w9_fence();
#pragma unroll
        for (int c = 0; c < C; c++) {
            if constexpr (W::REG_A) W::mma(d, a, db);
            else W::mma(d, da, db);
        }
        w9_commit();
        w9_wait<0>();
    }
    __syncthreads();
    long long t1 = clock64(), g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    /* The accumulators are read: where they were not, ptxas dropped the wgmmas that fed nothing (5 of
     * a chain-16 kernel's 80 left), volatile asm or not. sum is 0 (zero operands). */
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < W::ACC; i++) sum += d[i];
    if (threadIdx.x == 0) {
        cycles[blockIdx.x] = t1 - t0 + (sum != 0.0f);
        ns[blockIdx.x] = g1 - g0;
    }
}

/* The 64-row scorer's stream (v80, results/NOTES.md nineteenth session): 36 f16 m64n64k16 wgmmas a
 * tile, A from registers, issued in groups of G (one fence and one commit a group) whose fragments
 * rotate through D + 1 register sets, written before each group's fence when FRESH (as the K
 * widening does; an xor with a zero the compiler cannot see), with D groups left in flight (wait<D>).
 * Whether one warpgroup's wgmmas overlap across commit groups decides how a lone scorer must issue. */
template <int G, int D, bool FRESH> __global__ void __launch_bounds__(256, 1) stream(int reps, uint32_t zero, long long *cycles)
{
    extern __shared__ __align__(1024) uint8_t smem[];
    zero_operands(smem);
    float d[32];
#pragma unroll
    for (int i = 0; i < 32; i++) d[i] = 0.0f;
    uint32_t a[D + 1][G][4];
#pragma unroll
    for (int s = 0; s <= D; s++)
#pragma unroll
        for (int i = 0; i < G; i++)
#pragma unroll
            for (int k = 0; k < 4; k++) a[s][i][k] = 0;
    const uint64_t db = w9_desc(w9_smem_addr(smem) + 32768, 256);
    __syncthreads();
    long long t0 = clock64();
    for (int r = 0; r < reps; r++) {
#pragma unroll
        for (int g = 0; g < 36 / G; g++) {
            uint32_t (&f)[G][4] = a[g % (D + 1)];
            if (FRESH)
#pragma unroll
                for (int i = 0; i < G; i++)
#pragma unroll
                    for (int k = 0; k < 4; k++) f[i][k] ^= zero & (uint32_t)(r + g);
            w9_fence();
#pragma unroll
            for (int i = 0; i < G; i++) f16_rs<64, 0>::mma(d, f[i], db);
            w9_commit();
            w9_wait<D>();
        }
        w9_wait<0>();
    }
    __syncthreads();
    long long t1 = clock64();
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < 32; i++) sum += d[i];
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0 + (sum != 0.0f);
}

/* The long 64-row units' mix (forty-fifth session): warpgroups 2-3 issue the alternate scorers'
 * score steps (fp8 m64n32k32, both operands in shared memory, a fresh accumulator each, a ring of two:
 * issue, wait for the one before, add its 16 floats into the tile's sums), 36 a tile; warpgroups 0-1
 * the multipliers' P V (f16 m64n64k16, A from registers, IN_FLIGHT in flight), 32 a warpgroup for the
 * scorers' 36 (a scorer takes every other tile, a multiplier half the dims of every tile). Each
 * warpgroup repeats its part for MIX_BUDGET cycles and counts the parts it finished. mask 1: the
 * scorers alone, 2: the multipliers alone, 3: both, free-running, 7: both paced by a barrier of all
 * four a part, so that each multiplier does one part a scorer's tile, the walker's ratio without its
 * softmax or its data. Whether the two kinds of wgmma share the tensor pipe as their separate rates
 * add up says whether the walker's tile (~2,790 cycles on b128-q4) is at what the pipe can do for
 * this mix or above it: paced, the pipe is full at ~1,860-2,000 cycles a tile (results/NOTES.md,
 * forty-fifth session). */
#define MIX_BUDGET 4000000LL
template <int IN_FLIGHT> __global__ void __launch_bounds__(512, 1) mix(int mask, long long *parts)
{
    extern __shared__ __align__(1024) uint8_t smem[];
    zero_operands(smem);
    const int wg = threadIdx.x / 128;
    const bool scorer = wg >= 2, on = (mask >> (scorer ? 0 : 1)) & 1, paced = mask == 7;
    const uint32_t base = w9_smem_addr(smem);
    const uint64_t da = w9_desc(base, 256), db = w9_desc(base + 32768, 256);
    float s[32], acc[2][16], d[32];
    uint32_t a[4] = { 0, 0, 0, 0 };
#pragma unroll
    for (int i = 0; i < 32; i++) s[i] = d[i] = 0.0f;
    long long n = 0;
    const long long t0 = clock64();
    /* wgmma takes the whole warpgroup: its warps must agree when to stop (one thread reads the clock,
     * a slot by parity so that no write overtakes a read of the slot before) */
    __shared__ int go[4][2];
    for (;;) {
        if (paced) {   /* all four warpgroups a part each, as in the walker: one barrier a part */
            if (threadIdx.x == 0) go[0][n & 1] = clock64() - t0 < MIX_BUDGET;
            asm volatile("bar.sync 5, 512;\n" ::: "memory");
            if (!go[0][n & 1]) break;
        } else {
            if (threadIdx.x % 128 == 0) go[wg][n & 1] = on && clock64() - t0 < MIX_BUDGET;
            asm volatile("bar.sync %0, 128;\n" ::"r"(1 + wg) : "memory");
            if (!go[wg][n & 1]) break;
        }
        if (scorer) {
#pragma unroll
            for (int k = 0; k < 37; k++) {
                if (k < 36) {
                    w9_fence();
                    w9_fp8<32>::mma(acc[k % 2], da, db, 0);
                    w9_commit();
                }
                if (k >= 1) {
                    w9_wait_dyn<1>(k < 36 ? 1 : 0);
                    w9_fence_regs<16>(acc[(k - 1) % 2]);
#pragma unroll
                    for (int i = 0; i < 16; i++) s[16 * ((k - 1) % 2) + i] += acc[(k - 1) % 2][i];
                }
            }
        } else {
#pragma unroll
            for (int k = 0; k < 32; k++) {
                w9_fence();
                f16_rs<64, 0>::mma(d, a, db);
                w9_commit();
                w9_wait<IN_FLIGHT - 1>();
            }
            w9_wait<0>();
        }
        n++;
    }
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < 32; i++) sum += s[i] + d[i];
    if (threadIdx.x % 128 == 0) parts[blockIdx.x * 4 + wg] = n + (sum != 0.0f);
}

static int cmp_ll(const void *x, const void *y)
{
    long long a = *(const long long *)x, b = *(const long long *)y;
    return (a > b) - (a < b);
}

/* The median over the SMs of a per-CTA count the kernel left in device memory. */
static double median_over_sms(const long long *dev, int sms)
{
    long long v[1024];
    CHECK(cudaMemcpy(v, dev, sms * sizeof v[0], cudaMemcpyDeviceToHost));
    qsort(v, sms, sizeof v[0], cmp_ll);
    return (double)v[sms / 2];
}

template <class W, int C> static void run(const char *name, double peak, int sms, long long *dc, long long *dn)
{
    const int reps = 512;
    CHECK(cudaFuncSetAttribute(rate<W, C>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
    for (int wgs = 1; wgs <= 2; wgs++) {
        for (int pass = 0; pass < 2; pass++) {   /* the first pass loads the module and warms the clocks */
            rate<W, C><<<sms, 128 * wgs, SMEM_BYTES>>>(reps, dc, dn);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
        }
        const double cyc = median_over_sms(dc, sms), per = cyc / reps / C, sm_flops = W::flops * reps * C * wgs / cyc;
        printf("%-40s %3d %5d %9.1f %10.0f %6.1f %%  %6.0f\n", name, wgs, C, per, sm_flops, 100.0 * sm_flops / peak,
               cyc / median_over_sms(dn, sms) * 1e3);
    }
}

#define FP8 8192.0
#define F16 4096.0
template <int C> static void run_chain(int sms, long long *dc, long long *dn)
{
    run<fp8_ss<32>, C>("fp8 ss m64n32k32 (scores now)", FP8, sms, dc, dn);
    run<fp8_ss<64>, C>("fp8 ss m64n64k32", FP8, sms, dc, dn);
    run<fp8_ss<256>, C>("fp8 ss m64n256k32", FP8, sms, dc, dn);
    run<f16_rs<16, 0>, C>("f16 rs m64n16k16 (32-row P V)", F16, sms, dc, dn);
    run<f16_rs<32, 0>, C>("f16 rs m64n32k16 (P V now)", F16, sms, dc, dn);
    run<f16_rs<64, 0>, C>("f16 rs m64n64k16", F16, sms, dc, dn);
    run<f16_rs<256, 1>, C>("f16 rs m64n256k16, B MN-major", F16, sms, dc, dn);
    run<f16_ss<64, 0>, C>("f16 ss m64n64k16", F16, sms, dc, dn);
    run<f16_ss<256, 1>, C>("f16 ss m64n256k16, B MN-major", F16, sms, dc, dn);
}

template <int G, int D, bool FRESH> static void run_stream(int sms, long long *dc)
{
    const int reps = 64;
    CHECK(cudaFuncSetAttribute(stream<G, D, FRESH>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
    for (int wgs = 1; wgs <= 2; wgs++) {
        for (int pass = 0; pass < 2; pass++) {
            stream<G, D, FRESH><<<sms, 128 * wgs, SMEM_BYTES>>>(reps, 0u, dc);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
        }
        const double per = median_over_sms(dc, sms) / reps / 36;
        printf("f16 rs m64n64k16 x36: groups of %2d, %d in flight, %-5s %3d %9.1f %6.1f %%\n", G, D, FRESH ? "fresh" : "same", wgs, per,
               100.0 * 2.0 * 64 * 64 * 16 * wgs / per / F16);
    }
}

/* Median over the SMs of the parts each role finished in the budget, and the cycles a part. */
template <int IN_FLIGHT> static void run_mix(int sms, long long *dp)
{
    CHECK(cudaFuncSetAttribute(mix<IN_FLIGHT>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
    static const struct { int mask; const char *what; } modes[] = {
        { 1, "scorers alone" }, { 2, "multipliers alone" }, { 3, "both" }, { 7, "both, paced" } };
    long long v[4 * 1024];
    for (const auto &m : modes) {
        const int mask = m.mask;
        for (int pass = 0; pass < 2; pass++) {
            mix<IN_FLIGHT><<<sms, 512, SMEM_BYTES>>>(mask, dp);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
        }
        CHECK(cudaMemcpy(v, dp, sms * 4 * sizeof v[0], cudaMemcpyDeviceToHost));
        double per[2] = { 0, 0 };  /* cycles a part: scorers (wg 2), multipliers (wg 0) */
        for (int r = 0; r < 2; r++) {
            long long w[1024];
            for (int i = 0; i < sms; i++) w[i] = v[4 * i + (r == 0 ? 2 : 0)];
            qsort(w, sms, sizeof w[0], cmp_ll);
            per[r] = w[sms / 2] > 0 ? (double)MIX_BUDGET / w[sms / 2] : 0.0;
        }
        /* the pipe's busy share at the probe's own rates (an SM: 24 cycles a score step, 32 a P V
         * wgmma), two warpgroups a role */
        const double busy = (per[0] > 0 ? 2 * 36 * 24.0 / per[0] : 0) + (per[1] > 0 ? 2 * 32 * 32.0 / per[1] : 0);
        printf("mix, P V %d in flight, %-18s  scorer tile %8.0f cyc  multiplier part %8.0f cyc  pipe at the solo rates %5.1f %%\n",
               IN_FLIGHT, m.what, per[0], per[1], 100.0 * busy);
    }
}

int main(void)
{
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    if (p.major != 9) { fprintf(stderr, "sm90-wgmma-rate: needs a Hopper GPU (sm_90), found sm_%d%d\n", p.major, p.minor); return 4; }
    const int sms = p.multiProcessorCount > 1024 ? 1024 : p.multiProcessorCount;
    long long *dc, *dn;
    CHECK(cudaMalloc(&dc, sms * sizeof *dc));
    CHECK(cudaMalloc(&dn, sms * sizeof *dn));
    printf("%s, %d SMs; a CTA an SM; medians over the SMs\n", p.name, sms);
    printf("%-40s %3s %5s %9s %10s %8s  %6s\n", "wgmma", "wgs", "chain", "cyc/wgmma", "FLOP/cyc", "of peak", "MHz");
    run_chain<1>(sms, dc, dn);
    run_chain<4>(sms, dc, dn);
    run_chain<16>(sms, dc, dn);
    printf("\nthe 64-row scorer's stream                                  wgs cyc/wgmma  of peak\n");
    run_stream<2, 1, true>(sms, dc);     /* v80 */
    run_stream<2, 2, true>(sms, dc);     /* v80b */
    run_stream<2, 2, false>(sms, dc);
    run_stream<4, 1, true>(sms, dc);
    run_stream<6, 1, true>(sms, dc);
    run_stream<12, 1, true>(sms, dc);
    run_stream<36, 0, false>(sms, dc);
    printf("\nthe long 64-row units' mix (cycles a scorer's tile of 36 score steps, a multiplier's 32 P V wgmmas)\n");
    long long *dp;
    CHECK(cudaMalloc(&dp, 4 * sms * sizeof *dp));
    run_mix<1>(sms, dp);
    run_mix<2>(sms, dp);
    run_mix<4>(sms, dp);
    CHECK(cudaFree(dp));
    CHECK(cudaFree(dc));
    CHECK(cudaFree(dn));
    return 0;
}
