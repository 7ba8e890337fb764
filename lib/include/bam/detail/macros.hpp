// bam/detail/macros.hpp: the one place for compiler and platform switches of bamkit's public
// headers. Code written once for host and device uses BAM_HD; everything that differs between nvcc
// and the host compiler is decided here.
#pragma once

#if defined(__CUDACC__)
#define BAM_HD __host__ __device__
#define BAM_DEVICE __device__
#define BAM_HOST __host__
#else
#define BAM_HD
#define BAM_DEVICE
#define BAM_HOST
#endif

#if defined(__CUDA_ARCH__)
#define BAM_DEVICE_CODE 1
#else
#define BAM_DEVICE_CODE 0
#endif

// BAM_FORCEINLINE: inline this function into its callers in device code. For a kernel's body
// written as a BAM_HD function that takes the kernel's by-value parameters by reference: a
// device function nvcc does not inline gets them through a copy in local memory, so every
// access to a handle's fields is a memory load.
#if defined(__CUDACC__)
#define BAM_FORCEINLINE __forceinline__
#else
#define BAM_FORCEINLINE inline
#endif

// BAM_NOINLINE: keep this function out of line in device code: a slow path (the cache's miss
// path) that every kernel calling it should not carry inline, nor have its registers
// allocated around the kernel's own values.
#if defined(__CUDACC__)
#define BAM_NOINLINE __noinline__
#else
#define BAM_NOINLINE
#endif

// BAM_UNROLL: fully unroll the loop that follows in device code (host compilers differ in the
// pragma's spelling, and do their own unrolling).
#if defined(__CUDA_ARCH__)
#define BAM_UNROLL _Pragma("unroll")
#else
#define BAM_UNROLL
#endif

#define BAM_STRINGIFY_(x) #x
#define BAM_STRINGIFY(x) BAM_STRINGIFY_(x)
