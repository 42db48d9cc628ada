/*
 * learn_bench.c: the cost of learning on the device (kpca_fit) on the
 * emulated Cortex-M4F. Makes LEARN_N synthetic vectors of dimension LEARN_D
 * (two noisy rings in the first two features, noise in the rest, from a
 * fixed LCG), then, with -DLEARN_FIT=1, fits an RBF model (gamma 1/d,
 * k = LEARN_K, standardised, false-alarm rate 0.05) into static buffers and
 * loads it. scripts/learn-cost.sh counts the instructions of the build with
 * and without the fit (the difference is the fit's) and the flash the fit
 * adds; this program prints the stack the fit used (painted) and the
 * workspace and model bytes. Exit status 0 on success.
 */
#include <stddef.h>
#include <stdint.h>

#include "kpca.h"
#include "semihost.h"
#include "stack.h"

#ifndef LEARN_N
#define LEARN_N 64
#endif
#ifndef LEARN_D
#define LEARN_D 8
#endif
#ifndef LEARN_K
#define LEARN_K 4
#endif
#ifndef LEARN_FIT
#define LEARN_FIT 1
#endif

/* The workspace and model sizes of kpca_fit_sizes, in floats/words. */
#define WS_FLOATS (LEARN_N * LEARN_N + LEARN_N * (LEARN_D + LEARN_K + 6) + 2 * LEARN_D + 2 * LEARN_K)
#define MODEL_WORDS (16 + 2 * LEARN_D + LEARN_N * (LEARN_D + LEARN_K + 2) + 2 * LEARN_K + 1)

static float x[LEARN_N * LEARN_D];
static float workspace[WS_FLOATS];
static uint32_t model_buf[MODEL_WORDS];

static uint32_t lcg_state = 12345u;
static float uniform(void) /* in [-1, 1) */
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return (float)(lcg_state >> 8) / 8388608.0f - 1.0f;
}

static void make_data(void)
{
    for (size_t i = 0; i < LEARN_N; i++) {
        /* A point on a ring of radius 1 or 0.5 from a rational parametrisation
         * (no libm): t in [-1, 1) -> ((1 - t^2), 2t) / (1 + t^2). */
        float t = uniform();
        float r = (i % 2 == 0) ? 1.0f : 0.5f;
        float q = 1.0f + t * t;
        for (size_t j = 0; j < LEARN_D; j++) {
            x[i * LEARN_D + j] = 0.05f * uniform();
        }
        x[i * LEARN_D + 0] += r * (1.0f - t * t) / q;
        if (LEARN_D > 1) {
            x[i * LEARN_D + 1] += r * 2.0f * t / q;
        }
    }
}

/* What a firmware that runs a model links anyway (load, project, score,
 * flag): kept in both builds, so the flash difference is the fit's own. */
static kpca_status (*volatile keep_load)(kpca_model *, const uint8_t *, size_t) = kpca_model_from_bytes;
static kpca_status (*volatile keep_score)(const kpca_model *, const float *, size_t, float *, size_t, float *) = kpca_project_and_score;
static kpca_status (*volatile keep_flag)(const kpca_model *, const float *, size_t, uint8_t *) = kpca_is_anomaly;
static kpca_status (*volatile keep_batch)(const kpca_model *, const float *, size_t, float *, size_t) = kpca_anomaly_score_batch;

int main(void)
{
    kpca_fit_params p;
    size_t ws = 0, mb = 0;
    kpca_status st;
    uint32_t stack = 0;
    (void)keep_load;
    (void)keep_score;
    (void)keep_flag;
    (void)keep_batch;
    make_data();
    p.kernel = 2;
    p.degree = 3;
    p.gamma = 0.0f;
    p.coef0 = 1.0f;
    p.n_components = LEARN_K;
    p.standardize = 1;
    p.false_alarm_rate = 0.05f;
    st = kpca_fit_sizes(LEARN_N, LEARN_D, &p, &ws, &mb);
    if (st != KPCA_OK || ws > sizeof workspace || mb > sizeof model_buf) {
        semihost_printf("kpca_fit_sizes: %s (%d), %u / %u B\n", kpca_status_str(st), (int)st, (unsigned)ws, (unsigned)mb);
        return 1;
    }
#if LEARN_FIT
    {
        kpca_model model;
        float thr = 0.0f;
        size_t len = 0;
        stack_paint();
        st = kpca_fit(x, LEARN_N * LEARN_D, LEARN_D, &p, workspace, ws, (uint8_t *)model_buf, mb, &len);
        stack = stack_high_water();
        if (st == KPCA_OK) {
            st = kpca_model_from_bytes(&model, (const uint8_t *)model_buf, len);
        }
        if (st == KPCA_OK) {
            st = kpca_model_threshold(&model, &thr);
        }
        if (st != KPCA_OK || !(thr > 0.0f)) {
            semihost_printf("kpca_fit: %s (%d)\n", kpca_status_str(st), (int)st);
            return 1;
        }
    }
#endif
    semihost_printf("learn n=%u d=%u k=%u workspace=%u model=%u stack=%u\n", (unsigned)LEARN_N,
                    (unsigned)LEARN_D, (unsigned)LEARN_K, (unsigned)ws, (unsigned)mb, (unsigned)stack);
    return 0;
}
