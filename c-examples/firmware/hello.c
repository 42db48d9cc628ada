/*
 * Smoke test for the mps2-an386 harness: FPU on, .data/.bss set up, float
 * formatting through semihosting, stack painting, exit status.
 * Build with -DHELLO_EXIT_CODE=3 to check that main's return value becomes
 * QEMU's exit status (Makefile target `hello_exit3`).
 */
#include <math.h>
#include <stdint.h>

#include "semihost.h"
#include "stack.h"

#ifndef HELLO_EXIT_CODE
#define HELLO_EXIT_CODE 0
#endif

/* In .data: must read back as initialised (checks the .data copy). */
volatile float hello_seed = 1.5f;
/* In .bss: must read back as zero (checks .bss zeroing). */
volatile uint32_t hello_zero;

__attribute__((noinline)) static float series(float x, int n)
{
    /* Partial sum of exp(x) = sum x^i / i!, computed on the FPU. */
    float term = 1.0f, sum = 1.0f;
    for (int i = 1; i < n; ++i) {
        term *= x / (float)i;
        sum += term;
    }
    return sum;
}

int main(void)
{
    float x = hello_seed;
    float s = sqrtf(x);
    float e = expf(x);
    float p = series(x, 12);

    semihost_printf("hello from mps2-an386 (Cortex-M4F)\n");
    semihost_printf("seed=%g sqrtf=%.7f expf=%.7f series=%.7f diff=%.3e\n",
                    (double)x, (double)s, (double)e, (double)p,
                    (double)(e - p));

    stack_paint();
    float q = series(-x, 20);
    uint32_t used = stack_high_water();
    semihost_printf("series(-x)=%.9g stack: %u bytes used by the call, "
                    "%u bytes in use, bss=%u\n",
                    (double)q, (unsigned)used, (unsigned)stack_in_use(),
                    (unsigned)hello_zero);

    if (hello_zero != 0u || x != 1.5f || fabsf(e - p) > 1e-5f) {
        semihost_printf("FAIL: runtime setup or FPU result wrong\n");
        return 1;
    }
    semihost_printf("returning %d\n", HELLO_EXIT_CODE);
    return HELLO_EXIT_CODE;
}
