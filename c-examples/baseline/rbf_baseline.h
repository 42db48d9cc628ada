/*
 * Straightforward C kernel-PCA projection for the RBF kernel: the baseline
 * that the kpca library is measured against (see /work/shared/DESIGN.md §2).
 *
 *   k_x[i] = expf(-gamma * ||x - z_i||^2)          i = 0..m-1
 *   y      = A' k_x + b                             (k outputs)
 *   e      = 1 - 2 c' k_x + s - ||y||^2             (anomaly score; k(x,x) = 1)
 *
 * Plain loops over runtime m, d, k; newlib expf; no buffers (k_x[i] is used as
 * soon as it is computed).
 */
#ifndef KPCA_RBF_BASELINE_H
#define KPCA_RBF_BASELINE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * x       input vector, d floats
 * points  landmarks z_i, m x d, row-major
 * a       A, m x k, row-major
 * b       k floats
 * c       m floats
 * s       scalar
 * gamma   RBF parameter
 * y       output, k floats
 * returns the anomaly score e
 */
float rbf_baseline_project(const float *x, const float *points,
                           const float *a, const float *b, const float *c,
                           float s, float gamma,
                           size_t m, size_t d, size_t k, float *y);

#ifdef __cplusplus
}
#endif

#endif /* KPCA_RBF_BASELINE_H */
