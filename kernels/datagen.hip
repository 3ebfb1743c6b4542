/* Input generation on the GPU (seeded, deterministic, never timed): bf16 normals, the KV amax and the
 * per-tensor fp8 quantisation of the KV cache. */
#include "common.h"

static int grid_for(int64_t n, int threads)
{
    int64_t blocks = (n + threads - 1) / threads;
    return (int)(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

__global__ void gen_bf16_kernel(uint16_t *dst, int64_t n, uint64_t seed, uint64_t stream, float std)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        dst[i] = mb_gen_bf16(seed, stream, (uint64_t)i, std);
}

extern "C" hipError_t mb_launch_gen_bf16(uint16_t *dst, int64_t n, uint64_t seed, uint64_t stream, float std,
                                         hipStream_t s)
{
    gen_bf16_kernel<<<grid_for(n, 256), 256, 0, s>>>(dst, n, seed, stream, std);
    return MB_LAUNCH_RESULT();
}

__global__ void amax_bf16_kernel(const uint16_t *src, int64_t n, float *amax)
{
    __shared__ float red[256];
    float m = 0.0f;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        m = fmaxf(m, fabsf(mb_bf16_to_f32(src[i])));
    red[threadIdx.x] = m;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + w]);
        __syncthreads();
    }
    /* Non-negative floats order like their bit patterns, so an integer max is a float max. */
    if (threadIdx.x == 0) atomicMax((unsigned int *)amax, mb_f32_bits(red[0]));
}

extern "C" hipError_t mb_launch_amax_bf16(const uint16_t *src, int64_t n, float *amax, hipStream_t s)
{
    amax_bf16_kernel<<<grid_for(n, 256), 256, 0, s>>>(src, n, amax);
    return MB_LAUNCH_RESULT();
}

__global__ void quant_kv_kernel(const uint16_t *src, int64_t n, const float *amax, float *scale, uint8_t *dst)
{
    float sc = *amax > 0.0f ? *amax / mb_fp8_max(MB_FP8_FNUZ) : 1.0f;
    if (blockIdx.x == 0 && threadIdx.x == 0) *scale = sc;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        dst[i] = mb_f32_to_fp8(mb_bf16_to_f32(src[i]) / sc, MB_FP8_FNUZ);
}

extern "C" hipError_t mb_launch_quant_kv(const uint16_t *src, int64_t n, const float *amax, float *scale,
                                         uint8_t *dst, hipStream_t s)
{
    quant_kv_kernel<<<grid_for(n, 256), 256, 0, s>>>(src, n, amax, scale, dst);
    return MB_LAUNCH_RESULT();
}
