/*
 * cmsis_compiler.h for building CMSIS-DSP's SVM sources in the peer benchmark
 * (scripts/peers/cmsis-dsp-cost.sh) without CMSIS-Core: the few compiler
 * macros (and __CLZ) CMSIS-DSP's headers use, for GCC on Cortex-M. Written for this
 * repository; not part of the kpca library.
 */
#ifndef KPCA_CMSIS_COMPILER_SHIM_H
#define KPCA_CMSIS_COMPILER_SHIM_H

#define __STATIC_FORCEINLINE static inline __attribute__((always_inline))
#define __STATIC_INLINE static inline
#define __ALIGNED(x) __attribute__((aligned(x)))
#define __PACKED __attribute__((packed))

#include <stdint.h>

/* Leading zeros of x, 32 for 0 (as CMSIS-Core's). */
static inline uint8_t __CLZ(uint32_t x)
{
    return x == 0u ? 32u : (uint8_t)__builtin_clz(x);
}

#endif
