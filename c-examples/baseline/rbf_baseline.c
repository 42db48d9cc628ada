/* Baseline RBF kernel-PCA projection and anomaly score (see rbf_baseline.h). */
#include "rbf_baseline.h"

#include <math.h>

float rbf_baseline_project(const float *x, const float *points,
                           const float *a, const float *b, const float *c,
                           float s, float gamma,
                           size_t m, size_t d, size_t k, float *y)
{
    float ck = 0.0f;

    for (size_t j = 0; j < k; ++j) {
        y[j] = b[j];
    }

    for (size_t i = 0; i < m; ++i) {
        const float *z = points + i * d;
        float dist2 = 0.0f;
        for (size_t t = 0; t < d; ++t) {
            float diff = x[t] - z[t];
            dist2 += diff * diff;
        }
        float kx = expf(-gamma * dist2);

        const float *ai = a + i * k;
        for (size_t j = 0; j < k; ++j) {
            y[j] += ai[j] * kx;
        }
        ck += c[i] * kx;
    }

    float yy = 0.0f;
    for (size_t j = 0; j < k; ++j) {
        yy += y[j] * y[j];
    }
    return 1.0f - 2.0f * ck + s - yy;
}
