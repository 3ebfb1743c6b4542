/* Hopper (sm_90a) tensor-core building blocks shared by the sm90 decode kernel and its layout test:
 * shared-memory matrix descriptors, the canonical K-major operand layout, and the wgmma shapes the
 * kernel issues. Only for nvcc with the compute_90a target (wgmma does not exist elsewhere).
 *
 * Operand layout ("K-major, no swizzle"): a matrix of R rows x K bytes is stored as 8-row x 16-byte
 * core matrices, each 128 contiguous bytes (row r of the core at 16 r). Core matrices adjacent in K
 * are 128 bytes apart (the descriptor's leading byte offset, LBO); groups of 8 rows are `sbo` bytes
 * apart (its stride byte offset, SBO). A wgmma reads each core matrix as one 128-byte line, so the
 * layout is free of bank conflicts for the tensor cores; the threads that fill it write 16-byte
 * pieces of 8 consecutive rows, which are contiguous too. fp8 wgmma accepts only K-major operands,
 * which is why V is transposed (to V^T, K = tokens) before the P V product. */
#ifndef MB_SM90_WGMMA_H
#define MB_SM90_WGMMA_H

#include <stdint.h>

#define W9_LBO 128

/* Byte offset of (row, k_byte) in a K-major no-swizzle layout with row-group stride sbo. */
__host__ __device__ __forceinline__ uint32_t w9_off(int row, int kbyte, int sbo)
{
    return (uint32_t)((row >> 3) * sbo + (kbyte >> 4) * W9_LBO + (row & 7) * 16 + (kbyte & 15));
}

/* The wrappers exist in every compilation pass (the host pass parses the kernels too); their asm only
 * in the sm_90a device pass. */
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define W9_ENABLED 1
#define W9_ASM(...) asm volatile(__VA_ARGS__)
#else
#define W9_ENABLED 0
#define W9_ASM(...) do { } while (0)
#endif

__device__ __forceinline__ uint32_t w9_smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

/* Descriptor of the operand block whose first row / first k byte sits at shared address `addr`:
 * start (bits 0-13, >> 4), LBO (16-29), SBO (32-45), swizzle mode 0 (none, bits 62-63). */
__device__ __forceinline__ uint64_t w9_desc(uint32_t addr, uint32_t sbo)
{
    return (uint64_t)((addr & 0x3ffffu) >> 4) | ((uint64_t)(W9_LBO >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32);
}

__device__ __forceinline__ void w9_fence() { W9_ASM("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void w9_commit() { W9_ASM("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void w9_wait() { W9_ASM("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
/* Ordinary (generic-proxy) shared-memory writes that a wgmma reads next must be fenced by the writer
 * before the barrier that publishes them. */
__device__ __forceinline__ void w9_fence_proxy() { W9_ASM("fence.proxy.async.shared::cta;\n" ::: "memory"); }

/* The accumulator of an m64nN wgmma: thread (warp w, lane 4 g + t) holds, for each 8-column block j,
 * d[4j + 0..3] = D[16w + g][8j + 2t], D[16w + g][8j + 2t + 1], D[16w + g + 8][8j + 2t], D[16w + g + 8][8j + 2t + 1]. */

#define W9_R4(o) "+f"(d[o + 0]), "+f"(d[o + 1]), "+f"(d[o + 2]), "+f"(d[o + 3])
#define W9_R8(o) W9_R4(o), W9_R4(o + 4)
#define W9_R16(o) W9_R8(o), W9_R8(o + 8)
#define W9_R32(o) W9_R16(o), W9_R16(o + 16)

/* D (64 x N, f32) (+)= A (64 x 32, e4m3) B^T (N x 32, e4m3); accumulate = 0 overwrites D. */
template <int N> struct w9_fp8;
template <> struct w9_fp8<8> {
    __device__ __forceinline__ static void mma(float *d, uint64_t a, uint64_t b, int accumulate)
    {
        W9_ASM("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%0,%1,%2,%3}, %4, %5, p, 1, 1;\n}\n"
                     : W9_R4(0) : "l"(a), "l"(b), "r"(accumulate));
    }
};
template <> struct w9_fp8<16> {
    __device__ __forceinline__ static void mma(float *d, uint64_t a, uint64_t b, int accumulate)
    {
        W9_ASM("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, p, 1, 1;\n}\n"
                     : W9_R8(0) : "l"(a), "l"(b), "r"(accumulate));
    }
};
template <> struct w9_fp8<32> {
    __device__ __forceinline__ static void mma(float *d, uint64_t a, uint64_t b, int accumulate)
    {
        W9_ASM("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,"
                     "%13,%14,%15}, %16, %17, p, 1, 1;\n}\n"
                     : W9_R16(0) : "l"(a), "l"(b), "r"(accumulate));
    }
};

/* D (64 x N, f32) (+)= A (64 x 16, f16) B^T (N x 16, f16), both K-major (no transpose flags): the P V
 * of 64-row units, whose V^T is a shared copy (smaller units take V^T from registers, w9_f16_ra). */
template <int N> struct w9_f16;
template <> struct w9_f16<64> {
    __device__ __forceinline__ static void mma(float *d, uint64_t a, uint64_t b, int accumulate)
    {
        W9_ASM("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,"
                     "%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
                     : W9_R32(0) : "l"(a), "l"(b), "r"(accumulate));
    }
};


/* D (64 x N, f32) += A (64 x 16, f16, from registers) B^T (N x 16, f16, K-major in shared memory).
 * A fragment of the thread (warp w, lane 4g + t): a[0] = rows 16w + g, k 2t..2t+1; a[1] = row
 * 16w + g + 8, same k; a[2], a[3] = the same rows at k 2t+8..2t+9 (low half = the lower k). */
#define W9_A4 "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3])
template <int N> struct w9_f16_ra;
template <> struct w9_f16_ra<16> {
    __device__ __forceinline__ static void mma(float *d, const uint32_t *a, uint64_t b)
    {
        W9_ASM("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, 1, 1, 1, 0;\n"
               : W9_R8(0) : W9_A4, "l"(b));
    }
};
template <> struct w9_f16_ra<32> {
    __device__ __forceinline__ static void mma(float *d, const uint32_t *a, uint64_t b)
    {
        W9_ASM("wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,"
               "%14,%15}, {%16,%17,%18,%19}, %20, 1, 1, 1, 0;\n"
               : W9_R16(0) : W9_A4, "l"(b));
    }
};

/* Four e4m3 codes [b0 b1 b2 b3] -> f16x2 [b0 b2] and [b1 b3], each value times 2^-8, exactly: the 7
 * magnitude bits moved to f16 bit 7 make an f16 of the same value over 2^8 (subnormals included, as
 * f16 subnormals), the sign goes to bit 15. Five integer operations instead of two cvt per four codes
 * on the slower conversion pipe; callers fold the 2^8 into their output scale. */
__device__ __forceinline__ uint32_t w9_f16x2_even(uint32_t v) { return ((v << 7) & 0x3f803f80u) | ((v << 8) & 0x80008000u); }
__device__ __forceinline__ uint32_t w9_f16x2_odd(uint32_t v) { return ((v >> 1) & 0x3f803f80u) | (v & 0x80008000u); }

/* The A fragment of V^T (M = value dims, K = tokens) for one warp, straight from an fp8 tile in the
 * K-major layout above (tokens are its rows): the warp's 16 value dims start at byte `dim0` of each
 * token, its 16 tokens at row `tok0` (a multiple of 16). The M rows are permuted inside the warp's
 * block: row g is dim dim0 + 2g and row g + 8 is dim dim0 + 2g + 1 — so one ldmatrix.trans of the
 * two 8-token core matrices hands the lane exactly [tok 2t: d, d+1][tok 2t+1: d, d+1] (d = 2g), the
 * even / odd widening of which are rows g and g + 8. Values come out x 2^-8 (w9_f16x2_even). */
__device__ __forceinline__ void w9_vt_fragment(uint32_t a[4], uint32_t tile, int tok0, int dim0, int sbo)
{
#if W9_ENABLED
    const int lane = threadIdx.x % 32;
    uint32_t r0, r1;
    uint32_t src = tile + w9_off(tok0 + (lane / 8) * 8 + lane % 8, dim0, sbo);   /* lanes 0-7, 8-15 used */
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n" : "=r"(r0), "=r"(r1) : "r"(src));
    a[0] = w9_f16x2_even(r0);
    a[1] = w9_f16x2_odd(r0);
    a[2] = w9_f16x2_even(r1);
    a[3] = w9_f16x2_odd(r1);
#else
    (void)tile; (void)tok0; (void)dim0; (void)sbo;
    a[0] = a[1] = a[2] = a[3] = 0;
#endif
}

#endif
