/*
 * Instruction-count benchmark for the C baseline RBF kernel-PCA projection
 * (c-examples/baseline/rbf_baseline.c): m = 128 landmarks, d = 8, k = 4,
 * synthetic model from a fixed LCG.
 *
 * Build twice, identical except for BENCH_CALLS (0 and N); the difference of
 * the two total instruction counts divided by N is the cost of one call (plus a
 * few instructions of loop overhead, see scripts/qemu-plugin/README.md).
 * The number of calls is read from a volatile global, so the compiler
 * generates the same code for both builds.
 */
#include <stddef.h>
#include <stdint.h>

#include "rbf_baseline.h"
#include "semihost.h"
#include "stack.h"

#ifndef BENCH_CALLS
#define BENCH_CALLS 1024
#endif

#define M 128
#define D 8
#define K 4
#define NX 16   /* distinct inputs, cycled through; power of two */

/* Forced into .data so that both builds have the same .data/.bss layout
 * (0 would otherwise go to .bss). */
__attribute__((section(".data.bench_calls")))
volatile uint32_t bench_calls = BENCH_CALLS;
volatile float bench_sink;

static float points[M * D];
static float a[M * K];
static float b[K];
static float c[M];
static float xs[NX * D];

static uint32_t lcg_state = 12345u;

/* Uniform in [-1, 1), from the top 24 bits of a 32-bit LCG. */
static float lcg_uniform(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return (float)(lcg_state >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

static void make_model(void)
{
    for (size_t i = 0; i < M * D; ++i) {
        points[i] = lcg_uniform();
    }
    for (size_t i = 0; i < M * K; ++i) {
        a[i] = 0.1f * lcg_uniform();
    }
    for (size_t j = 0; j < K; ++j) {
        b[j] = 0.05f * lcg_uniform();
    }
    for (size_t i = 0; i < M; ++i) {
        c[i] = 1.0f / (float)M;
    }
    for (size_t i = 0; i < NX * D; ++i) {
        /* Inputs near the landmarks' range, some further out. */
        xs[i] = (i / D) % 4 == 3 ? 2.0f * lcg_uniform() : lcg_uniform();
    }
}

int main(void)
{
    const float s = 0.25f;
    const float gamma = 1.0f / (float)D;
    float y[K];

    make_model();

    /* One reference call, the same in every build. */
    stack_paint();
    float e = rbf_baseline_project(xs, points, a, b, c, s, gamma, M, D, K, y);
    uint32_t stack_used = stack_high_water();
    semihost_printf("rbf_baseline m=%d d=%d k=%d: y = [%.6f %.6f %.6f %.6f] "
                    "e = %.6f, stack %u bytes\n",
                    M, D, K, (double)y[0], (double)y[1], (double)y[2],
                    (double)y[3], (double)e, (unsigned)stack_used);

    /* The measured loop. */
    uint32_t n = bench_calls;
    for (uint32_t i = 0; i < n; ++i) {
        const float *x = xs + (i & (NX - 1)) * D;
        bench_sink = rbf_baseline_project(x, points, a, b, c, s, gamma,
                                          M, D, K, y);
    }
    return 0;
}
