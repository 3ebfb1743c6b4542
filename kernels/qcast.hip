/* The cast-free Q quantisation: a plain saturating cast to fp8 with scale 1, no amax pass. Q ~ N(0,1)
 * sits far inside fp8's range, so nothing saturates and the scale reduction would buy nothing. */
#include "common.h"

/* 8 elements a thread: one 16-byte load, one 8-byte store (576 is a multiple of 8). */
__global__ void qcast_kernel(const uint4 *src, uint2 *dst, int64_t n8)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n8; i += (int64_t)gridDim.x * blockDim.x) {
        uint4 v = src[i];
        uint32_t w[4] = { v.x, v.y, v.z, v.w }, out[2] = { 0, 0 };
#pragma unroll
        for (int k = 0; k < 8; k++) {
            uint16_t h = (uint16_t)(w[k / 2] >> (16 * (k % 2)));
            out[k / 4] |= (uint32_t)mb_f32_to_fp8(mb_bf16_to_f32(h), MB_FP8_FNUZ) << (8 * (k % 4));
        }
        dst[i] = make_uint2(out[0], out[1]);
    }
}

extern "C" hipError_t mb_launch_qcast(const uint16_t *src, uint8_t *dst, int64_t n, hipStream_t s)
{
    int64_t n8 = n / 8, blocks = (n8 + 255) / 256;
    if (n % 8) return hipErrorInvalidValue;
    qcast_kernel<<<(int)(blocks < 8192 ? (blocks > 0 ? blocks : 1) : 8192), 256, 0, s>>>(
        (const uint4 *)src, (uint2 *)dst, n8);
    return MB_LAUNCH_RESULT();
}
