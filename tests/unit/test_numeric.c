/* Number formats and the counter RNG of numeric.h, checked against independent computations written
 * here (field-by-field fp8 decoding, nearest-value search, SplitMix64 from its definition), because
 * the host reference and the GPU kernels share numeric.h word for word: a bug there would otherwise
 * agree with itself everywhere. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "numeric.h"
#include "unit.h"

/* --- independent fp8 model --- */

static int ref_fp8_is_nan(unsigned c, int fnuz) { return fnuz ? c == 0x80u : (c & 0x7fu) == 0x7fu; }

/* Value of a code from its fields: (-1)^s * 2^(e - bias) * (1 + m/8), subnormals m * 2^(1 - bias - 3). */
static double ref_fp8_value(unsigned c, int fnuz)
{
    int bias = fnuz ? 8 : 7;
    int s = (c >> 7) & 1, e = (c >> 3) & 15, m = c & 7;
    double mag = e == 0 ? ldexp((double)m, 1 - bias - 3) : ldexp((double)(8 + m), e - bias - 3);
    return s ? -mag : mag;
}

/* Highest positive finite code: 0x7e (448) for fn, whose 0x7f is NaN; 0x7f (240) for fnuz. */
static unsigned ref_fp8_top(int fnuz) { return fnuz ? 0x7fu : 0x7eu; }

/* Expected saturating round-to-nearest-even cast: searches the sorted positive codes for the two
 * around |f| and picks the closer, the even code on a tie; independent of mb_f32_to_fp8's bit tricks. */
static unsigned ref_f32_to_fp8(float f, int fnuz)
{
    if (isnan(f)) return fnuz ? 0x80u : 0x7fu;
    unsigned sign = signbit(f) ? 0x80u : 0u, top = ref_fp8_top(fnuz), code;
    double a = fabs((double)f);
    if (a >= ref_fp8_value(top, fnuz)) {
        code = top;
    } else {
        unsigned lo = 0, hi = top;               /* value(lo) <= a < value(hi) */
        while (hi - lo > 1) {
            unsigned mid = (lo + hi) / 2;
            if (ref_fp8_value(mid, fnuz) <= a) lo = mid; else hi = mid;
        }
        double dlo = a - ref_fp8_value(lo, fnuz), dhi = ref_fp8_value(hi, fnuz) - a;
        code = dlo < dhi ? lo : dhi < dlo ? hi : (lo % 2 == 0 ? lo : hi);
    }
    if (code == 0 && fnuz) return 0;              /* fnuz has no negative zero */
    return sign | code;
}

static uint32_t bits(float f) { return mb_f32_bits(f); }

static void test_fp8_decode_all_codes(void)
{
    for (int fnuz = 0; fnuz < 2; fnuz++) {
        int nans = 0;
        for (unsigned c = 0; c < 256; c++) {
            float got = mb_fp8_to_f32((uint8_t)c, fnuz);
            if (ref_fp8_is_nan(c, fnuz)) {
                nans++;
                CHECKF(isnan(got), "%s code 0x%02x: got %g, want NaN", mb_fp8_name(fnuz), c, got);
                continue;
            }
            double want = ref_fp8_value(c, fnuz);
            /* Bit equality also checks the sign of zero: fn 0x80 is -0. */
            CHECKF(bits(got) == bits((float)want), "%s code 0x%02x: got %a, want %a", mb_fp8_name(fnuz), c,
                   (double)got, want);
        }
        CHECK(nans == (fnuz ? 1 : 2));
    }
    CHECK(bits(mb_fp8_to_f32(0x80, 0)) == 0x80000000u);
    CHECK(mb_fp8_to_f32(0x7e, 0) == 448.0f && mb_fp8_to_f32(0xfe, 0) == -448.0f);
    CHECK(mb_fp8_to_f32(0x7f, 1) == 240.0f && mb_fp8_to_f32(0xff, 1) == -240.0f);
    CHECK(mb_fp8_to_f32(0x01, 0) == 0x1p-9f && mb_fp8_to_f32(0x01, 1) == 0x1p-10f);
    CHECK(mb_fp8_to_f32(0x08, 0) == 0x1p-6f && mb_fp8_to_f32(0x08, 1) == 0x1p-7f);
    CHECK(mb_fp8_max(0) == 448.0f && mb_fp8_max(1) == 240.0f);
}

static void test_fp8_round_trip(void)
{
    for (int fnuz = 0; fnuz < 2; fnuz++)
        for (unsigned c = 0; c < 256; c++) {
            if (ref_fp8_is_nan(c, fnuz)) continue;
            unsigned back = mb_f32_to_fp8(mb_fp8_to_f32((uint8_t)c, fnuz), fnuz);
            CHECKF(back == c, "%s code 0x%02x re-encodes to 0x%02x", mb_fp8_name(fnuz), c, back);
        }
    CHECK(mb_f32_to_fp8(0.0f, 1) == 0x00);
    CHECK(mb_f32_to_fp8(-0.0f, 1) == 0x00);
    CHECK(mb_f32_to_fp8(-0.0f, 0) == 0x80);
}

/* Halfway between every adjacent pair of same-sign finite codes, and one float either side of it. */
static void test_fp8_ties_and_neighbours(void)
{
    for (int fnuz = 0; fnuz < 2; fnuz++) {
        const char *nm = mb_fp8_name(fnuz);
        int ties = 0;
        for (unsigned c = 0; c < ref_fp8_top(fnuz); c++) {
            for (int neg = 0; neg < 2; neg++) {
                unsigned s = neg ? 0x80u : 0u;
                float v0 = (float)ref_fp8_value(c, fnuz), v1 = (float)ref_fp8_value(c + 1, fnuz);
                float mid = 0.5f * (v0 + v1);   /* exact: fp8 values have 4 significant bits */
                if (neg) { v0 = -v0; v1 = -v1; mid = -mid; }
                CHECK((double)mid == 0.5 * ((double)v0 + (double)v1));
                unsigned even = (c % 2 == 0) ? c : c + 1;
                unsigned lo = c, hi = c + 1;
                /* fnuz has no -0: a negative value rounding to zero encodes as 0x00. */
                unsigned want_tie = (even == 0 && fnuz) ? 0 : s | even;
                unsigned want_lo = (lo == 0 && fnuz) ? 0 : s | lo;
                unsigned want_hi = s | hi;
                unsigned got = mb_f32_to_fp8(mid, fnuz);
                CHECKF(got == want_tie, "%s tie %a between 0x%02x/0x%02x: got 0x%02x want 0x%02x", nm,
                       (double)mid, s | lo, s | hi, got, want_tie);
                float away = nextafterf(mid, neg ? -INFINITY : INFINITY);
                float toward = nextafterf(mid, 0.0f);
                got = mb_f32_to_fp8(away, fnuz);
                CHECKF(got == want_hi, "%s %a just past the tie: got 0x%02x want 0x%02x", nm, (double)away, got,
                       want_hi);
                got = mb_f32_to_fp8(toward, fnuz);
                CHECKF(got == want_lo, "%s %a just short of the tie: got 0x%02x want 0x%02x", nm, (double)toward,
                       got, want_lo);
                ties++;
            }
        }
        CHECK(ties == 2 * (int)ref_fp8_top(fnuz));
    }
    /* Named cases: the subnormal/normal boundary of fn (0x07 = 7 * 2^-9, 0x08 = 2^-6) ties to 0x08,
     * the first tie above zero goes to zero, the first subnormal tie (1.5 * 2^-9) to 0x02. */
    CHECK(mb_f32_to_fp8(7.5f * 0x1p-9f, 0) == 0x08);
    CHECK(mb_f32_to_fp8(0x1p-10f, 0) == 0x00);
    CHECK(mb_f32_to_fp8(1.5f * 0x1p-9f, 0) == 0x02);
    CHECK(mb_f32_to_fp8(2.5f * 0x1p-9f, 0) == 0x02);
    CHECK(mb_f32_to_fp8(7.5f * 0x1p-10f, 1) == 0x08);
    /* 1.0625 sits between 1.0 (m = 0) and 1.125 (m = 1); 1.1875 between m = 1 and m = 2. */
    CHECK(mb_f32_to_fp8(1.0625f, 0) == 0x38);
    CHECK(mb_f32_to_fp8(1.1875f, 0) == 0x3a);
    /* 1.9375 is halfway between 1.875 (m = 7) and 2.0: rounds up into the next binade. */
    CHECK(mb_f32_to_fp8(1.9375f, 0) == 0x40);
    CHECK(mb_f32_to_fp8(-1.9375f, 0) == 0xc0);
}

static void test_fp8_saturation_nan_tiny(void)
{
    const float big[] = { 448.0001f, 449.0f, 464.0f, 479.0f, 480.0f, 1e6f, 3.0e38f, INFINITY };
    for (unsigned i = 0; i < sizeof big / sizeof big[0]; i++) {
        CHECKF(mb_f32_to_fp8(big[i], 0) == 0x7e, "fn %g -> 0x%02x", (double)big[i], mb_f32_to_fp8(big[i], 0));
        CHECKF(mb_f32_to_fp8(-big[i], 0) == 0xfe, "fn %g -> 0x%02x", (double)-big[i], mb_f32_to_fp8(-big[i], 0));
        CHECKF(mb_f32_to_fp8(big[i], 1) == 0x7f, "fnuz %g -> 0x%02x", (double)big[i], mb_f32_to_fp8(big[i], 1));
        CHECKF(mb_f32_to_fp8(-big[i], 1) == 0xff, "fnuz %g -> 0x%02x", (double)-big[i], mb_f32_to_fp8(-big[i], 1));
    }
    CHECK(mb_f32_to_fp8(448.0f, 0) == 0x7e && mb_f32_to_fp8(-448.0f, 0) == 0xfe);
    CHECK(mb_f32_to_fp8(240.0001f, 1) == 0x7f && mb_f32_to_fp8(248.0f, 1) == 0x7f);
    CHECK(mb_f32_to_fp8(-240.0001f, 1) == 0xff);
    /* Just below the top, in range: nearest is still the top code. */
    CHECK(mb_f32_to_fp8(447.0f, 0) == 0x7e && mb_f32_to_fp8(239.0f, 1) == 0x7f);

    const float nans[] = { NAN, -NAN, mb_bits_f32(0x7f800001u), mb_bits_f32(0xffc00001u) };
    for (unsigned i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        uint8_t fn = mb_f32_to_fp8(nans[i], 0), nz = mb_f32_to_fp8(nans[i], 1);
        CHECKF(isnan(mb_fp8_to_f32(fn, 0)), "fn NaN %08x -> 0x%02x", (unsigned)bits(nans[i]), fn);
        CHECKF(nz == 0x80, "fnuz NaN %08x -> 0x%02x", (unsigned)bits(nans[i]), nz);
    }

    /* At or below half the smallest subnormal (fn 2^-10, fnuz 2^-11): zero, fn keeping the sign and
     * fnuz unable to. fnuz's list is fn's halved. */
    const float tiny[] = { 0x1p-10f, 0x1.fffffep-11f, 0x1p-11f, 1e-10f, 1e-30f, 0x1p-126f, 0x1p-148f };
    for (unsigned i = 0; i < sizeof tiny / sizeof tiny[0]; i++) {
        float t = tiny[i], h = 0.5f * tiny[i];
        CHECKF(mb_f32_to_fp8(t, 0) == 0x00, "fn %a", (double)t);
        CHECKF(mb_f32_to_fp8(-t, 0) == 0x80, "fn %a", (double)-t);
        CHECKF(mb_f32_to_fp8(h, 1) == 0x00, "fnuz %a", (double)h);
        CHECKF(mb_f32_to_fp8(-h, 1) == 0x00, "fnuz %a", (double)-h);
    }
    CHECK(mb_f32_to_fp8(0x1.000002p-10f, 0) == 0x01 && mb_f32_to_fp8(0x1.000002p-11f, 1) == 0x01);
    /* fnuz: half the smallest subnormal (2^-11) ties to zero; from the negative side too. */
    CHECK(mb_f32_to_fp8(-0x1p-11f, 1) == 0x00);
    CHECK(mb_f32_to_fp8(-0x1.000002p-11f, 1) == 0x81);
    CHECK(mb_f32_to_fp8(-0x1.000002p-10f, 0) == 0x81);
    /* No input ever encodes to the fnuz NaN code except NaN itself. */
    for (uint32_t u = 0x80000000u; u < 0x80000000u + 0x3c000000u; u += 0x1357u)
        CHECKF(mb_f32_to_fp8(mb_bits_f32(u), 1) != 0x80, "fnuz %a -> 0x80", (double)mb_bits_f32(u));
}

/* Small xorshift for test inputs; independent of the generator under test. */
static uint64_t xs_state = 0x9e3779b97f4a7c15ull;
static uint64_t xs_next(void)
{
    uint64_t x = xs_state;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    return xs_state = x;
}
static double xs_unit(void) { return (double)(xs_next() >> 11) * (1.0 / 9007199254740992.0); }

static void test_fp8_nearest_random(void)
{
    xs_state = 0x243f6a8885a308d3ull;
    for (int fnuz = 0; fnuz < 2; fnuz++) {
        int bad = 0;
        for (int i = 0; i < 1000000 && bad < 10; i++) {
            float f;
            int kind = i % 8;
            if (kind < 5) f = (float)(xs_unit() * 1000.0 - 500.0);                     /* [-500, 500] */
            else if (kind == 5) f = (float)ldexp(xs_unit() - 0.5, -(int)(xs_next() % 16)); /* small */
            else if (kind == 6) f = (float)((xs_unit() - 0.5) * 0x1p-7);                /* subnormal range */
            else f = mb_bits_f32((uint32_t)(xs_next() >> 32) & 0xc3ffffffu);            /* |f| < 2, any bits */
            unsigned got = mb_f32_to_fp8(f, fnuz), want = ref_f32_to_fp8(f, fnuz);
            if (got != want) {
                bad++;
                CHECKF(got == want, "%s %a: got 0x%02x want 0x%02x", mb_fp8_name(fnuz), (double)f, got, want);
            }
            /* The nearest-value property directly: no finite code is strictly closer. */
            if (!isnan(f) && fabsf(f) < mb_fp8_max(fnuz) && (i & 63) == 0) {
                double e = fabs((double)mb_fp8_to_f32((uint8_t)got, fnuz) - (double)f);
                for (unsigned c = 0; c < 256; c++) {
                    if (ref_fp8_is_nan(c, fnuz)) continue;
                    CHECK(fabs(ref_fp8_value(c, fnuz) - (double)f) >= e);
                }
            }
        }
    }
}

/* Every f16 code against the format's definition, by ldexp: (-1)^s 2^(e-15) (1 + m/1024), subnormals
 * 2^-14 m/1024, e = 31 infinities and NaNs. */
static void test_f16_decode_all_codes(void)
{
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
        const float got = mb_f16_to_f32((uint16_t)h);
        if (e == 31) {
            bad += m ? !isnan(got) : !(isinf(got) && (got < 0) == s);
            continue;
        }
        const double want = (s ? -1.0 : 1.0) * (e ? ldexp(1.0 + m / 1024.0, e - 15) : ldexp(m / 1024.0, -14));
        bad += got != (float)want || (signbit(got) != 0) != s;
    }
    CHECKF(bad == 0, "%d codes decode wrong", bad);
    CHECK(mb_f16_to_f32(0x3c00) == 1.0f && mb_f16_to_f32(0xc000) == -2.0f && mb_f16_to_f32(0x7bff) == 65504.0f);
    CHECK(mb_f16_to_f32(0x0001) == ldexpf(1.0f, -24) && signbit(mb_f16_to_f32(0x8000)));
}

static void test_bf16(void)
{
    CHECK(mb_f32_to_bf16(mb_bits_f32(0x3f808000u)) == 0x3f80);   /* tie, even stays */
    CHECK(mb_f32_to_bf16(mb_bits_f32(0x3f818000u)) == 0x3f82);   /* tie, odd goes up */
    CHECK(mb_f32_to_bf16(mb_bits_f32(0x3f808001u)) == 0x3f81);
    CHECK(mb_f32_to_bf16(mb_bits_f32(0x3f807fffu)) == 0x3f80);
    CHECK(mb_f32_to_bf16(mb_bits_f32(0xbf818000u)) == 0xbf82);
    CHECK(mb_f32_to_bf16(mb_bits_f32(0x3f81ffffu)) == 0x3f82);
    CHECK(mb_f32_to_bf16(1.0f) == 0x3f80 && mb_f32_to_bf16(-2.0f) == 0xc000);
    CHECK(mb_f32_to_bf16(INFINITY) == 0x7f80 && mb_f32_to_bf16(-INFINITY) == 0xff80);
    /* Largest float rounds past bf16's largest finite: IEEE round-to-nearest gives inf. */
    CHECK(mb_f32_to_bf16(mb_bits_f32(0x7f7fffffu)) == 0x7f80);
    CHECK(mb_f32_to_bf16(mb_bits_f32(0x7f7f7fffu)) == 0x7f7f);
    CHECK(mb_f32_to_bf16(0.0f) == 0x0000 && mb_f32_to_bf16(-0.0f) == 0x8000);
    const uint32_t nans[] = { 0x7fc00000u, 0x7f800001u, 0x7f80ffffu, 0xffc00000u, 0xff800001u, 0x7fffffffu };
    for (unsigned i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        uint16_t h = mb_f32_to_bf16(mb_bits_f32(nans[i]));
        CHECKF(isnan(mb_bf16_to_f32(h)), "NaN %08x -> %04x", (unsigned)nans[i], h);
        CHECK((h & 0x8000u) == ((nans[i] >> 16) & 0x8000u));
    }
    /* bf16 -> f32 is exact: the top half of the float bits; and every non-NaN bf16 round-trips. */
    for (uint32_t h = 0; h < 65536; h++) {
        float f = mb_bf16_to_f32((uint16_t)h);
        CHECK(bits(f) == h << 16);
        if (!isnan(f)) CHECK(mb_f32_to_bf16(f) == h);
    }
    /* Random float bits against a truncate-and-compare model of round-to-nearest-even. */
    xs_state = 0x13198a2e03707344ull;
    int bad = 0;
    for (int i = 0; i < 200000 && bad < 10; i++) {
        uint32_t u = (uint32_t)(xs_next() >> 32);
        if ((u & 0x7fffffffu) >= 0x7f800000u) continue;
        uint32_t low = u & 0xffffu, t = u >> 16;
        uint32_t want = (low > 0x8000u || (low == 0x8000u && (t & 1u))) ? t + 1 : t;
        uint16_t got = mb_f32_to_bf16(mb_bits_f32(u));
        if (got != want) { bad++; CHECKF(got == want, "%08x -> %04x want %04x", (unsigned)u, got, (unsigned)want); }
    }
}

/* SplitMix64's finaliser written out from its definition (Steele, Lea and Flood 2014). */
static uint64_t ref_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void test_rng_known_answers(void)
{
    /* Published SplitMix64 outputs: state += golden gamma, then the finaliser. Seed 0 gives
     * 0xe220a8397b1dcdaf first; seed 1234567 gives the sequence below. */
    CHECK(mb_mix64(0x9e3779b97f4a7c15ull) == 0xe220a8397b1dcdafull);
    const uint64_t seq[] = { 6457827717110365317ull, 3203168211198807973ull, 9817491932198370423ull };
    uint64_t st = 1234567;
    for (int i = 0; i < 3; i++) {
        st += 0x9e3779b97f4a7c15ull;
        CHECK(mb_mix64(st) == seq[i]);
    }
    /* Regression table, computed once with ref_mix64 / the formula of mb_rng_u64. */
    CHECK(mb_mix64(0) == 0);
    CHECK(mb_mix64(1) == 0x5692161d100b05e5ull);
    CHECK(mb_mix64(2) == 0xdbd238973a2b148aull);
    CHECK(mb_mix64(0xdeadbeefull) == 0x4e062702ec929eeaull);
    CHECK(mb_mix64(~0ull) == 0xb4d055fcf2cbbd7bull);
    CHECK(mb_rng_u64(0, 0, 0) == 0);
    CHECK(mb_rng_u64(1, 2, 3) == 0x12c36488285ddb0full);
    CHECK(mb_rng_u64(42, 1, 0) == 0xb29ed950786f5ae3ull);
    CHECK(mb_rng_u64(42, 1, 1) == 0x4292bb992558e69eull);
    CHECK(mb_rng_u64(42, 2, 0) == 0x761a44e8f7283712ull);
    CHECK(mb_rng_u64(0xfeedfaceull, 3, 1ull << 40) == 0x7f06c7e723722e90ull);
    /* And against the reimplementation over many inputs. */
    xs_state = 0xa4093822299f31d0ull;
    for (int i = 0; i < 10000; i++) {
        uint64_t z = xs_next(), s = xs_next(), k = xs_next() % 8, idx = xs_next() >> (xs_next() % 64);
        CHECK(mb_mix64(z) == ref_mix64(z));
        CHECK(mb_rng_u64(s, k, idx) == ref_mix64(ref_mix64(s ^ (k * 0x9e3779b97f4a7c15ull)) +
                                                 idx * 0xd1b54a32d192ed03ull));
    }
}

static void test_rng_normal_moments(void)
{
    const int n = 1000000;
    double sum = 0.0, sum2 = 0.0;
    int inside1 = 0, nonfinite = 0;
    for (int i = 0; i < n; i++) {
        double x = mb_rng_normal(7, MB_STREAM_KV, (uint64_t)i);
        if (!isfinite(x)) { nonfinite++; continue; }
        sum += x;
        sum2 += x * x;
        inside1 += fabs(x) < 1.0;
    }
    double mean = sum / n, var = sum2 / n - mean * mean;
    /* 5 sigma: sd(mean) = 1/sqrt(n), sd(var) ~ sqrt(2/n), sd(P(|x|<1)) = sqrt(p(1-p)/n). */
    CHECK(nonfinite == 0);
    CHECKF(fabs(mean) < 5.0 / sqrt((double)n), "mean %g", mean);
    CHECKF(fabs(var - 1.0) < 5.0 * sqrt(2.0 / n), "var %g", var);
    double p = (double)inside1 / n;
    CHECKF(fabs(p - 0.6826894921370859) < 5.0 * sqrt(0.6827 * 0.3173 / n), "P(|x|<1) %g", p);
}

static void test_rng_streams(void)
{
    /* Pure function: same inputs, same output. */
    for (uint64_t i = 0; i < 1000; i++) {
        CHECK(mb_rng_u64(5, MB_STREAM_Q, i) == mb_rng_u64(5, MB_STREAM_Q, i));
        double a = mb_rng_normal(5, MB_STREAM_Q, i), b = mb_rng_normal(5, MB_STREAM_Q, i);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
    }
    /* Different seeds / streams / indices give different sequences (no collisions among 1000 draws). */
    int same_seed = 0, same_stream = 0, same_idx = 0;
    for (uint64_t i = 0; i < 1000; i++) {
        same_seed += mb_rng_u64(5, MB_STREAM_Q, i) == mb_rng_u64(6, MB_STREAM_Q, i);
        same_stream += mb_rng_u64(5, MB_STREAM_Q, i) == mb_rng_u64(5, MB_STREAM_KV, i);
        same_idx += mb_rng_u64(5, MB_STREAM_Q, i) == mb_rng_u64(5, MB_STREAM_Q, i + 1);
        same_stream += mb_rng_normal(5, MB_STREAM_KV, i) == mb_rng_normal(5, MB_STREAM_KV_LENS, i);
    }
    CHECK(same_seed == 0 && same_stream == 0 && same_idx == 0);
    /* Stream s of seed k is not stream s + 1 of seed k shifted by an index. */
    int shifted = 0;
    for (uint64_t i = 0; i + 1 < 1000; i++) shifted += mb_rng_u64(9, 1, i + 1) == mb_rng_u64(9, 2, i);
    CHECK(shifted == 0);
}

static void test_gen_bf16(void)
{
    const float stds[] = { 1.0f, 0.5f, 0.02f, 3.0f };
    for (unsigned s = 0; s < 4; s++)
        for (uint64_t i = 0; i < 20000; i += 7) {
            uint16_t want = mb_f32_to_bf16((float)mb_rng_normal(11, MB_STREAM_Q, i) * stds[s]);
            CHECK(mb_gen_bf16(11, MB_STREAM_Q, i, stds[s]) == want);
        }
    CHECK(mb_gen_bf16(11, MB_STREAM_Q, 3, 0.0f) == 0x0000 || mb_gen_bf16(11, MB_STREAM_Q, 3, 0.0f) == 0x8000);
}

void suite_numeric(void)
{
    RUN(test_fp8_decode_all_codes);
    RUN(test_fp8_round_trip);
    RUN(test_fp8_ties_and_neighbours);
    RUN(test_fp8_saturation_nan_tiny);
    RUN(test_fp8_nearest_random);
    RUN(test_f16_decode_all_codes);
    RUN(test_bf16);
    RUN(test_rng_known_answers);
    RUN(test_rng_normal_moments);
    RUN(test_rng_streams);
    RUN(test_gen_bf16);
}
