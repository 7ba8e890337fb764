// bam/config.hpp: the one place for compiler and platform switches of bamkit's public headers.
// Code written once for host and device uses BAM_HD; everything that differs between nvcc and
// the host compiler is decided here.
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

#define BAM_STRINGIFY_(x) #x
#define BAM_STRINGIFY(x) BAM_STRINGIFY_(x)
