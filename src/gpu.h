/* The one vendor header. Sources are written with HIP names; under nvcc (or a plain C compiler on the
 * NVIDIA build) these macros turn them into CUDA names, so no other file ever tests the vendor.
 * Debian's HIP 5.2 headers do not compile against CUDA 13, which is why we carry our own small map. */
#ifndef MB_GPU_H
#define MB_GPU_H

#if defined(MB_GPU_AMD) || defined(__HIP_PLATFORM_AMD__)
#  if defined(__HIPCC__)
#    include <hip/hip_runtime.h>
#  else
#    include <hip/hip_runtime_api.h>
#  endif
#  define MB_VENDOR "amd"
/* How the runtime loads a module's kernels (deferred, on first use, by default): recorded with every run,
 * since where kernels' code lands moves timings (README, "How it times"). */
#  define MB_MODULE_LOADING_ENV "HIP_ENABLE_DEFERRED_LOADING"
#  define MB_ARCH_NAME(prop, buf, n) snprintf((buf), (n), "%s", (prop).gcnArchName)
#  define MB_GPU_ID(prop, buf, n) snprintf((buf), (n), "pci %04x:%02x:%02x", (unsigned)(prop).pciDomainID, \
                                           (unsigned)(prop).pciBusID, (unsigned)(prop).pciDeviceID)
#else
#  if defined(__CUDACC__)
#    include <cuda_runtime.h>
#  else
#    include <cuda_runtime_api.h>
#  endif
#  define MB_VENDOR "nvidia"
/* How the driver loads a module's kernels (lazily, on first use, by default since CUDA 12.2): recorded
 * with every run, since where kernels' code lands moves timings (README, "How it times"). */
#  define MB_MODULE_LOADING_ENV "CUDA_MODULE_LOADING"
#  define MB_ARCH_NAME(prop, buf, n) snprintf((buf), (n), "sm_%d%d", (prop).major, (prop).minor)
/* nvidia-smi's form of the UUID, then the PCI address: which physical GPU a run had. */
#  define MB_GPU_ID(prop, buf, n) do { const unsigned char *u_ = (const unsigned char *)(prop).uuid.bytes; \
        snprintf((buf), (n), "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x, pci %04x:%02x:%02x", \
                 u_[0], u_[1], u_[2], u_[3], u_[4], u_[5], u_[6], u_[7], u_[8], u_[9], u_[10], u_[11], u_[12], u_[13], \
                 u_[14], u_[15], (unsigned)(prop).pciDomainID, (unsigned)(prop).pciBusID, (unsigned)(prop).pciDeviceID); \
    } while (0)
#  define hipError_t cudaError_t
#  define hipSuccess cudaSuccess
#  define hipErrorNoDevice cudaErrorNoDevice
#  define hipErrorInvalidValue cudaErrorInvalidValue
#  define hipErrorInsufficientDriver cudaErrorInsufficientDriver
#  define hipGetErrorString cudaGetErrorString
#  define hipGetErrorName cudaGetErrorName
#  define hipGetLastError cudaGetLastError
#  define hipGetDeviceCount cudaGetDeviceCount
#  define hipSetDevice cudaSetDevice
#  define hipGetDevice cudaGetDevice
#  define hipDeviceProp_t struct cudaDeviceProp
#  define hipGetDeviceProperties cudaGetDeviceProperties
#  define hipDeviceGetAttribute cudaDeviceGetAttribute
#  define hipDeviceAttributeClockRate cudaDevAttrClockRate
#  define hipDeviceAttributeMemoryClockRate cudaDevAttrMemoryClockRate
#  define hipDeviceAttributeMemoryBusWidth cudaDevAttrGlobalMemoryBusWidth
#  define hipDriverGetVersion cudaDriverGetVersion
#  define hipRuntimeGetVersion cudaRuntimeGetVersion
#  define hipDeviceSynchronize cudaDeviceSynchronize
#  define hipMalloc cudaMalloc
#  define hipFree cudaFree
#  define hipMemGetInfo cudaMemGetInfo
#  define hipMemcpy cudaMemcpy
#  define hipMemcpyAsync cudaMemcpyAsync
#  define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#  define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#  define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#  define hipMemset cudaMemset
#  define hipMemsetAsync cudaMemsetAsync
#  define hipStream_t cudaStream_t
#  define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#  define hipStreamNonBlocking cudaStreamNonBlocking
#  define hipStreamDestroy cudaStreamDestroy
#  define hipStreamSynchronize cudaStreamSynchronize
#  define hipEvent_t cudaEvent_t
#  define hipEventCreate cudaEventCreate
#  define hipEventDestroy cudaEventDestroy
#  define hipEventRecord cudaEventRecord
#  define hipEventSynchronize cudaEventSynchronize
#  define hipEventElapsedTime cudaEventElapsedTime
#  define hipGraph_t cudaGraph_t
#  define hipGraphExec_t cudaGraphExec_t
#  define hipStreamBeginCapture cudaStreamBeginCapture
#  define hipStreamEndCapture cudaStreamEndCapture
#  define hipStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
#  define hipGraphInstantiateWithFlags cudaGraphInstantiateWithFlags
#  define hipGraphLaunch cudaGraphLaunch
#  define hipGraphExecDestroy cudaGraphExecDestroy
#  define hipGraphDestroy cudaGraphDestroy
#  define hipStreamIsCapturing cudaStreamIsCapturing
#  define hipStreamCaptureStatus cudaStreamCaptureStatus
#  define hipStreamCaptureStatusNone cudaStreamCaptureStatusNone
#  define hipGetSymbolAddress cudaGetSymbolAddress
#  define hipMemcpyFromSymbol cudaMemcpyFromSymbol
#  define hipOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#  define hipFuncSetAttribute cudaFuncSetAttribute
#  define hipFuncGetAttributes cudaFuncGetAttributes
#  define hipFuncAttributes struct cudaFuncAttributes
#  define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#endif

/* The Hopper tensor-core kernel family exists only in NVIDIA builds. */
#if defined(MB_GPU_AMD) || defined(__HIP_PLATFORM_AMD__)
#  define MB_HAVE_SM90 0
#else
#  define MB_HAVE_SM90 1
#endif

/* Programmatic dependent launch: mb_launch_after starts a kernel whose blocks may be scheduled while
 * the previous kernel in the stream is still finishing (NVIDIA sm_90+: no launch gap between the two,
 * in a stream or a captured graph); the kernel must call MB_WAIT_PREVIOUS_GRID() before it reads
 * anything that kernel wrote. A kernel that calls MB_START_DEPENDENTS() lets the next one's blocks
 * start at once on SMs it leaves free (its tail); without it they start when it has finished.
 * Elsewhere (AMD, older NVIDIA) all three are the plain launch and no-ops. */
#if defined(__CUDACC__) || defined(__HIPCC__)
#  if defined(MB_GPU_AMD) || defined(__HIP_PLATFORM_AMD__)
template <typename... P, typename... A>
static inline hipError_t mb_launch_after(void (*k)(P...), dim3 grid, dim3 block, hipStream_t s, A... args)
{
    k<<<grid, block, 0, s>>>(args...);
    return hipGetLastError();
}
#    define MB_WAIT_PREVIOUS_GRID() do { } while (0)
#    define MB_START_DEPENDENTS() do { } while (0)
#  else
template <typename... P, typename... A>
static inline cudaError_t mb_launch_after(void (*k)(P...), dim3 grid, dim3 block, cudaStream_t s, A... args)
{
    cudaLaunchAttribute overlap[1];
    overlap[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    overlap[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.stream = s;
    cfg.attrs = overlap;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, k, args...);
}
#    if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#      define MB_WAIT_PREVIOUS_GRID() asm volatile("griddepcontrol.wait;\n" ::: "memory")
#      define MB_START_DEPENDENTS() asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory")
#    else
#      define MB_WAIT_PREVIOUS_GRID() do { } while (0)
#      define MB_START_DEPENDENTS() do { } while (0)
#    endif
#  endif
#endif

/* Whether device code converts by single PTX instructions (cvt.f32.f16, cvt.rn.bf16x2.f32); elsewhere
 * common.h uses the exact bit conversions of numeric.h. */
#if defined(MB_GPU_AMD) || defined(__HIP_PLATFORM_AMD__)
#  define MB_CVT_PTX 0
#else
#  define MB_CVT_PTX 1
#endif

/* How device code reads the clocks that time a call's SM clock (kernels/timing.hip): PTX's %smid,
 * %globaltimer (ns) and the SM's cycle counter on NVIDIA; HIP's __smid(), wall_clock64() (ticks at the
 * device's wall-clock rate) and clock64() elsewhere. MB_TIMER_KHZ stores that timer's rate in kHz. */
#if defined(MB_GPU_AMD) || defined(__HIP_PLATFORM_AMD__)
#  define MB_TIMER_PTX 0
#  define MB_TIMER_KHZ(khz) hipDeviceGetAttribute((khz), hipDeviceAttributeWallClockRate, 0)
#else
#  define MB_TIMER_PTX 1
#  define MB_TIMER_KHZ(khz) (*(khz) = 1000000, cudaSuccess)
#endif

/* Physical warp width for launch bounds and tile sizes in kernels that need it (64 on CDNA/GCN). The
 * portable kernels reduce through shared memory and never depend on it. */
#if defined(__AMDGCN_WAVEFRONT_SIZE)
#  define MB_WARP_SIZE __AMDGCN_WAVEFRONT_SIZE
#elif defined(MB_GPU_AMD) || defined(__HIP_PLATFORM_AMD__)
#  define MB_WARP_SIZE 64
#else
#  define MB_WARP_SIZE 32
#endif

#endif
