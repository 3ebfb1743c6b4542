/* Is a kernel's function pointer, in device code, the global address of its machine code?
 * And does prefetch.global.L2 on an unmapped address fault? */
#include <cstdio>
#include <cstdint>
__global__ void target(float *x) { x[threadIdx.x] = x[threadIdx.x] * 3.0f + 1.0f; }
__global__ void addr_probe(unsigned long long *out) {
    void (*f)(float *) = target;
    unsigned long long a = (unsigned long long)f;
    asm volatile("mov.b64 %0, %0;" : "+l"(a));
    out[0] = a;
    const unsigned long long *p = (const unsigned long long *)a;
    out[1] = p[0]; out[2] = p[1];
    void (*g)(unsigned long long *) = addr_probe;
    unsigned long long b = (unsigned long long)g;
    asm volatile("mov.b64 %0, %0;" : "+l"(b));
    out[3] = b;
}
__global__ void prefetch_at(unsigned long long a) { asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(a)); }
int main() {
    unsigned long long *d, h[8] = {0};
    cudaMalloc(&d, 64); cudaMemset(d, 0, 64);
    addr_probe<<<1, 1>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    printf("addr_probe: %s\n", cudaGetErrorString(e));
    cudaMemcpy(h, d, 64, cudaMemcpyDeviceToHost);
    printf("target at 0x%016llx, its first words 0x%016llx 0x%016llx (cubin: 0x00000a00ff017b82 0x000fe20000000800)\naddr_probe at 0x%016llx\n", h[0], h[1], h[2], h[3]);
    prefetch_at<<<1, 1>>>(h[0] + 4096); e = cudaDeviceSynchronize(); printf("prefetch +4 KB: %s\n", cudaGetErrorString(e));
    prefetch_at<<<1, 1>>>(h[0] + (64ull << 20)); e = cudaDeviceSynchronize(); printf("prefetch +64 MB: %s\n", cudaGetErrorString(e));
    prefetch_at<<<1, 1>>>(0x10ull); e = cudaDeviceSynchronize(); printf("prefetch 0x10: %s\n", cudaGetErrorString(e));
    return 0;
}
