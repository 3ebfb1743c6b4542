/* Number formats and the random generator, shared word for word by host C and GPU kernels, so a host
 * test can recompute any generated element or any conversion the GPU made, bit for bit. */
#ifndef MB_NUMERIC_H
#define MB_NUMERIC_H

#include <stdint.h>
#include <math.h>

#if defined(__CUDACC__) || defined(__HIPCC__)
#  define MB_HD __host__ __device__ static inline
#else
#  define MB_HD static inline
#endif

/* MLA decode dimensions (DeepSeek V2/V3 "absorbed" form): 512 latent + 64 rope dims of keys, the
 * first 512 of which are also the values. */
enum { MB_DK = 576, MB_DV = 512 };

/* fp8 e4m3 flavours: OCP e4m3fn (NVIDIA, gfx950; max 448, NaN 0x7f/0xff, has -0) and e4m3fnuz
 * (gfx942; max 240, bias 8, NaN 0x80 only, no -0). */
typedef enum { MB_FP8_E4M3FN = 0, MB_FP8_E4M3FNUZ = 1 } mb_fp8_flavour_t;

MB_HD float mb_fp8_max(int fnuz) { return fnuz ? 240.0f : 448.0f; }
MB_HD const char *mb_fp8_name(int fnuz) { return fnuz ? "e4m3fnuz" : "e4m3fn"; }

MB_HD uint32_t mb_f32_bits(float f) { union { float f; uint32_t u; } v; v.f = f; return v.u; }
MB_HD float mb_bits_f32(uint32_t u) { union { float f; uint32_t u; } v; v.u = u; return v.f; }

MB_HD float mb_fp8_to_f32(uint8_t x, int fnuz)
{
    uint32_t e = (x >> 3) & 15u, m = x & 7u;
    float sign = (x & 0x80u) ? -1.0f : 1.0f;
    if (fnuz ? x == 0x80u : (x & 0x7fu) == 0x7fu) return mb_bits_f32(0x7fc00000u);
    if (e == 0) return sign * (float)m * (fnuz ? 0.0009765625f /*2^-10*/ : 0.001953125f /*2^-9*/);
    /* (1 + m/8) * 2^(e - bias), built directly as float bits: exact for every code. */
    return sign * mb_bits_f32(((e + 127u - (fnuz ? 8u : 7u)) << 23) | (m << 20));
}

/* Saturating cast with round-to-nearest-even: out-of-range values (and ±inf) clamp to ±max, NaN
 * stays NaN. This is the "cast-free" quantisation of Q and, after division by the scale, of KV. */
MB_HD uint8_t mb_f32_to_fp8(float f, int fnuz)
{
    uint32_t bits = mb_f32_bits(f);
    uint32_t sign = (bits >> 24) & 0x80u;
    float a = fabsf(f);
    if (a != a) return fnuz ? 0x80u : 0x7fu;
    if (a >= mb_fp8_max(fnuz)) return (uint8_t)(sign | (fnuz ? 0x7fu : 0x7eu));
    int bias = fnuz ? 8 : 7;
    int e = (int)((mb_f32_bits(a) >> 23) & 0xffu) - 127;          /* floor(log2 a) for normals */
    uint32_t code;
    if (e < 1 - bias) {                                               /* fp8 subnormal range */
        float q = rintf(a * (fnuz ? 1024.0f : 512.0f));               /* exact scaling, then RNE */
        code = (uint32_t)q;                                           /* q == 8 is the smallest normal */
    } else {
        float q = rintf(ldexpf(a, 3 - e));                            /* in [8, 16] */
        uint32_t qi = (uint32_t)q;
        if (qi == 16u) { qi = 8u; e += 1; }
        code = ((uint32_t)(e + bias) << 3) | (qi - 8u);
    }
    if (code == 0 && fnuz) return 0;                                  /* fnuz has no -0 */
    return (uint8_t)(sign | code);
}

MB_HD float mb_bf16_to_f32(uint16_t h) { return mb_bits_f32((uint32_t)h << 16); }

/* IEEE half (f16) to float, exactly: the combine reads sm90's f16 partials (mb_kernel_info_t.partials_f16)
 * with it, in code that any HIP target compiles. */
MB_HD float mb_f16_to_f32(uint16_t h)
{
    const uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1fu) return mb_bits_f32(s | 0x7f800000u | (m << 13));          /* inf, nan */
    if (e == 0) return mb_bits_f32(s | mb_f32_bits((float)m * 5.9604644775390625e-8f));   /* m x 2^-24 */
    return mb_bits_f32(s | ((e + 112) << 23) | (m << 13));
}

MB_HD uint16_t mb_f32_to_bf16(float f)
{
    uint32_t u = mb_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);   /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* FNV-1a over 32-bit words, for host fingerprints (tuning keys of ragged batches, plan ids): start
 * from MB_FNV_OFFSET, fold in each word. */
#define MB_FNV_OFFSET 1469598103934665603ull
MB_HD uint64_t mb_fnv1a_i32(uint64_t h, const int32_t *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++) h = (h ^ (uint32_t)v[i]) * 1099511628211ull;
    return h;
}

/* Counter-based generator: element i of stream s under seed k is a pure function of (k, s, i), so
 * GPU threads generate in any order and the host recomputes any element. SplitMix64's finaliser. */
MB_HD uint64_t mb_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

MB_HD uint64_t mb_rng_u64(uint64_t seed, uint64_t stream, uint64_t index)
{
    return mb_mix64(mb_mix64(seed ^ (stream * 0x9e3779b97f4a7c15ull)) + index * 0xd1b54a32d192ed03ull);
}

/* Standard normal by Box-Muller in double: host libm and device math agree to within an ulp of
 * double, so after rounding to float and bf16 the host reproduces the device's values. */
MB_HD double mb_rng_normal(uint64_t seed, uint64_t stream, uint64_t index)
{
    uint64_t h = mb_rng_u64(seed, stream, index);
    double u1 = ((double)(h >> 11) + 1.0) * (1.0 / 9007199254740992.0);   /* (0, 1] */
    double u2 = (double)(mb_mix64(h) >> 11) * (1.0 / 9007199254740992.0); /* [0, 1) */
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Generated tensors, one stream each, so changing one never shifts another. */
enum { MB_STREAM_Q = 1, MB_STREAM_KV = 2, MB_STREAM_KV_LENS = 3, MB_STREAM_PAGES = 4 };

/* bf16 sample of N(0, std^2): what the GPU generator writes for element i. */
MB_HD uint16_t mb_gen_bf16(uint64_t seed, uint64_t stream, uint64_t index, float std)
{
    return mb_f32_to_bf16((float)mb_rng_normal(seed, stream, index) * std);
}

#endif
