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

/* The KV tile as the TMA unit writes it with its 64-byte swizzle (CU_TENSOR_MAP_SWIZZLE_64B): each
 * 64-byte slice j of a row (bytes [64j, 64j + 64)) has a region of its own, [rows][64 B], regions
 * `rows * 64` bytes apart, and the 16-byte chunk c of row r sits at chunk c ^ ((r / 2) % 4) of its row
 * (the hardware XORs address bits 7-8 into bits 4-5; regions are 512-byte aligned). A wgmma reads it
 * through a 64-byte-swizzle descriptor (w9_desc_sw64); ldmatrix rows are addressed one by one, so
 * they take the swizzle from this function. Why not the plain layout above: the TMA unit would move
 * it in 16-byte pieces (2304 a tile), this one in 64-byte ones; and the per-thread cp.async that the
 * plain layout needs was the kernel's largest stall (results/NOTES.md, v16). */
__host__ __device__ constexpr uint32_t w9_sw64_off(int row, int kbyte, int rows)
{
    return (uint32_t)((kbyte >> 6) * rows * 64 + row * 64 + ((((kbyte >> 4) & 3) ^ ((row >> 1) & 3)) << 4) + (kbyte & 15));
}

#if MB_HAVE_SM90
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
/* The TMA unit's description of a KV cache of `rows` rows x 576 bytes (device memory at kv) as a 3-D
 * tensor: 64 bytes, rows, the 9 slices of a row (strides 576 and 64), read with the 64-byte swizzle,
 * so that one box (64 x 64 x 9) is a whole tile already in the w9_sw64_off layout. The L2's fills are
 * promoted to 128 bytes: with 256 (until v131) 128 CTAs streamed their boxes at 3.87 TB/s, with 128 at
 * 4.13 (tests/gpu/sm90_stream_probe.hip; b128-q1 -8.3 %, results/NOTES.md, thirty-seventh session). The driver's
 * encoder is found through the runtime, so nothing links against libcuda. 0 or a CUresult (-1: the
 * driver has no encoder). */
static inline int w9_encode_kv_map(CUtensorMap *map, const void *kv, uint64_t rows,
                                   CUtensorMapL2promotion promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_128B)
{
    static PFN_cuTensorMapEncodeTiled_v12000 encode;
    if (!encode) {
        void *fn = NULL;
        cudaDriverEntryPointQueryResult found;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
            found != cudaDriverEntryPointSuccess || !fn)
            return -1;
        encode = (PFN_cuTensorMapEncodeTiled_v12000)fn;
    }
    cuuint64_t dim[3] = { 64, rows, 9 }, stride[2] = { 576, 64 };
    cuuint32_t box[3] = { 64, 64, 9 }, step[3] = { 1, 1, 1 };
    return (int)encode(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 3, (void *)kv, dim, stride, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
                       CU_TENSOR_MAP_SWIZZLE_64B, promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}
#endif

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
__host__ __device__ __forceinline__ uint64_t w9_desc(uint32_t addr, uint32_t sbo)
{
    return (uint64_t)((addr & 0x3ffffu) >> 4) | ((uint64_t)(W9_LBO >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32);
}

/* The descriptor of the block `bytes` (a multiple of 16) past the one `d` describes: the start
 * field is the address over 16 and shared addresses stay under 2^18, so the sum never carries out of
 * it. One add where rebuilding the descriptor from the address masks, shifts and merges again: the
 * walkers take each k-step's descriptors from one a tile. */
__host__ __device__ __forceinline__ uint64_t w9_desc_add(uint64_t d, uint32_t bytes) { return d + (bytes >> 4); }
/* The same as a 32-bit add to the low word, which the start field never carries out of: where ptxas
 * splits the 64-bit add into a carry pair (score_halves' Q, v145). Elsewhere the 64-bit add is one
 * instruction and this form is longer. */
__host__ __device__ __forceinline__ uint64_t w9_desc_add_lo(uint64_t d, uint32_t bytes)
{
    return (d & 0xffffffff00000000ull) | (uint32_t)((uint32_t)d + (bytes >> 4));
}

/* The same for a K-major operand in the 64-byte-swizzle layout (w9_sw64_off) whose 8-row groups are
 * 512 bytes apart; a k-step inside a 64-byte slice starts 32 bytes in (the swizzle is a function of the
 * address, so the start may move inside the pattern). The leading offset (between slices) matters
 * only to a k-step wider than a slice; it is given anyway. */
__host__ __device__ __forceinline__ uint64_t w9_desc_sw64(uint32_t addr, uint32_t slice_stride)
{
    return (uint64_t)((addr & 0x3ffffu) >> 4) | ((uint64_t)(slice_stride >> 4) << 16) | ((uint64_t)(512 >> 4) << 32) |
           (2ull << 62);
}

/* mbarriers and the TMA unit's tile copy (cp.async.bulk.tensor): the box counts its bytes
 * down on the barrier, whose phase completes once the one expected arrival (which adds the byte
 * count) has happened and every byte has landed. Waiters spin on the phase's parity. */
__device__ __forceinline__ void w9_mbar_init(uint64_t *bar)
{
    W9_ASM("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(w9_smem_addr(bar)) : "memory");
}
/* After the barriers are initialised, before any other thread or the TMA unit uses them. */
__device__ __forceinline__ void w9_mbar_init_fence() { W9_ASM("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }
__device__ __forceinline__ void w9_mbar_expect(uint64_t *bar, uint32_t bytes)
{
    W9_ASM("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(w9_smem_addr(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void w9_mbar_wait(uint64_t *bar, uint32_t parity)
{
    W9_ASM("{\n.reg .pred done;\nw9_wait_%=:\n"
           "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
           "@!done bra w9_wait_%=;\n}\n" ::"r"(w9_smem_addr(bar)), "r"(parity) : "memory");
}
/* The KV cache's tensor map, and whether its tiles' L2 lines go first (evict_first): the cache is read
 * once a call, so where the plan writes partials their lines may stay for the combine instead. Measured
 * with the hint on every plan (v110, v110r, two calls): b32-q1-kv8192, 4 splits, -3.2 / -2.7 %; but the
 * unsplit b100-q1-kv8192, pure streaming, +1.2 / +1.9 %, so plans without partials load with no hint.
 * Again at 128-byte promotion (v132): the hint on every plan cost b128-q1 +6.4 %, on none b32-q1-kv8192
 * +3.3 %; the stream probe reads the same split (604 MB: -7 % with the hint; 151 MB: +2.5 %).
 * A type, not a flag: each kernel's machine code holds one kind of copy (a flag read at each copy
 * grew the 64-row walker by 336 instructions and, as a hoisted select, spilled). */
template <bool EVICT_FIRST> struct w9_kv { const void *map; };

/* Box (0, y, 0) of the 3-D map: a whole tile from row y. */
template <bool EVICT_FIRST>
__device__ __forceinline__ void w9_tma_load_tile(uint32_t dst, w9_kv<EVICT_FIRST> kv, int y, uint64_t *bar)
{
    if constexpr (EVICT_FIRST) {
        uint64_t pol = 0;
#if W9_ENABLED   /* not volatile: a constant, which the compiler may hoist out of a loop */
        asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(pol));
#endif
        W9_ASM("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1, {%2, %3, %2}], [%4], %5;\n"
               ::"r"(dst), "l"(kv.map), "r"(0), "r"(y), "r"(w9_smem_addr(bar)), "l"(pol) : "memory");
    } else {
        W9_ASM("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %2}], [%4];\n"
               ::"r"(dst), "l"(kv.map), "r"(0), "r"(y), "r"(w9_smem_addr(bar)) : "memory");
    }
}

__device__ __forceinline__ void w9_fence() { W9_ASM("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void w9_commit() { W9_ASM("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void w9_wait() { W9_ASM("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
/* wait_group with a count known only after unrolling (a loop's tail); up to MAX. */
template <int MAX> __device__ __forceinline__ void w9_wait_dyn(int n)
{
    if constexpr (MAX > 0) {
        if (n >= MAX) { w9_wait<MAX>(); return; }
        w9_wait_dyn<MAX - 1>(n);
    } else {
        w9_wait<0>();
    }
}
/* Registers a wgmma wrote are read only after the wait that covers it; the wait's asm does not name
 * them, so without this the compiler may move their first use above it. */
template <int N> __device__ __forceinline__ void w9_fence_regs(float *r)
{
#pragma unroll
    for (int i = 0; i < N; i++) asm volatile("" : "+f"(r[i])::"memory");
}
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
template <> struct w9_fp8<64> {
    __device__ __forceinline__ static void mma(float *d, uint64_t a, uint64_t b, int accumulate)
    {
        W9_ASM("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,"
                     "%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1;\n}\n"
                     : W9_R32(0) : "l"(a), "l"(b), "r"(accumulate));
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
template <> struct w9_f16_ra<64> {
    __device__ __forceinline__ static void mma(float *d, const uint32_t *a, uint64_t b)
    {
        W9_ASM("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,"
               "%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, 1, 1, 1, 0;\n"
               : W9_R32(0) : W9_A4, "l"(b));
    }
};

/* Four e4m3 codes [b0 b1 b2 b3] -> f16x2 [b0 b2] and [b1 b3], each value times 2^-8, exactly: the 7
 * magnitude bits moved to f16 bit 7 make an f16 of the same value over 2^8 (subnormals included, as
 * f16 subnormals), the sign goes to bit 15. Six integer operations for the two words instead of four
 * cvt on the slower conversion pipe; callers fold the 2^8 into their output scale. The even word:
 * prmt puts b0 and b2 in the low byte of each half with the byte's sign replicated above it
 * (selector nibbles 8 and A), so one shift puts the magnitude at bit 7 and a sign bit at bit 15, and
 * one mask clears the rest (the shifts-and-masks of the odd word's form take four operations here). */
__device__ __forceinline__ uint32_t w9_f16x2_even(uint32_t v)
{
#if W9_ENABLED
    uint32_t t;
    asm("prmt.b32 %0, %1, 0, 0xA280;\n" : "=r"(t) : "r"(v));
    return (t << 7) & 0xbf80bf80u;
#else
    return ((v << 7) & 0x3f803f80u) | ((v << 8) & 0x80008000u);
#endif
}
__device__ __forceinline__ uint32_t w9_f16x2_odd(uint32_t v) { return ((v >> 1) & 0x3f803f80u) | (v & 0x80008000u); }

/* Four e4m3 codes [b0 b1 b2 b3] -> f16x2 [b0 b2] and [b1 b3], exactly, by the conversion unit: one
 * byte permute, then one cvt a pair (v36; v4 chose integer widening, w9_f16x2_even / odd, on the
 * conversion pipe's presumed rate without timing the two, and since v33 each warpgroup widens all of
 * V, which made that widening ~25 % of the 64-row walker's instructions). */
__device__ __forceinline__ void w9_f16x2_pairs(uint32_t v, uint32_t &even, uint32_t &odd)
{
#if W9_ENABLED
    uint32_t w;
    asm("prmt.b32 %0, %1, 0, 0x3120;\n" : "=r"(w) : "r"(v));
    asm("{\n.reg .b16 lo, hi;\nmov.b32 {lo, hi}, %2;\ncvt.rn.f16x2.e4m3x2 %0, lo;\ncvt.rn.f16x2.e4m3x2 %1, hi;\n}\n"
        : "=r"(even), "=r"(odd) : "r"(w));
#else
    even = odd = v;
#endif
}

/* The A fragment of V^T (M = value dims, K = tokens) for one warp, straight from an fp8 KV tile in
 * the 64-byte-swizzle layout (w9_sw64_off; tokens are its `rows` rows): the warp's 16 value dims start
 * at byte `dim0` of each token, its 16 tokens at row `tok0` (a multiple of 16). The M rows are permuted
 * inside the warp's block: row g is dim dim0 + 2g and row g + 8 is dim dim0 + 2g + 1 — so one
 * ldmatrix.trans of the two 8-token core matrices hands the lane exactly [tok 2t: d, d+1][tok 2t+1:
 * d, d+1] (d = 2g), the pairs [b0 b2] and [b1 b3] of which are rows g and g + 8 (w9_f16x2_pairs).
 * Values are the codes' own: the conversion unit's f16 is exact. w9_vt_load_at issues the ldmatrix at
 * an address (pv_load's come from one offset a thread, sm90_unit.h), w9_vt_load at w9_sw64_off's,
 * w9_vt_widen makes the fragment of its two words, w9_vt_fragment loads and widens. */
__device__ __forceinline__ void w9_vt_load_at(uint32_t raw[2], uint32_t src)
{
#if W9_ENABLED
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n" : "=r"(raw[0]), "=r"(raw[1]) : "r"(src));
#else
    (void)src;
    raw[0] = raw[1] = 0;
#endif
}
__device__ __forceinline__ void w9_vt_load(uint32_t raw[2], uint32_t tile, int tok0, int dim0, int rows)
{
    const int lane = threadIdx.x % 32;
    w9_vt_load_at(raw, tile + w9_sw64_off(tok0 + (lane / 8) * 8 + lane % 8, dim0, rows));   /* lanes 0-7, 8-15 used */
}
/* Apart from the load, so that a walker can have the next step's loads in flight while it widens and
 * multiplies this one's: in v48 each step widened the words of loads it had just issued, and their
 * latency was the PRMTs' short-scoreboard stalls, ~13 % of b128-q1's and b128-q4's samples. */
__device__ __forceinline__ void w9_vt_widen(uint32_t a[4], const uint32_t raw[2])
{
    w9_f16x2_pairs(raw[0], a[0], a[1]);
    w9_f16x2_pairs(raw[1], a[2], a[3]);
}
__device__ __forceinline__ void w9_vt_fragment(uint32_t a[4], uint32_t tile, int tok0, int dim0, int rows)
{
    uint32_t raw[2];
    w9_vt_load(raw, tile, tok0, dim0, rows);
    w9_vt_widen(a, raw);
}

#endif
