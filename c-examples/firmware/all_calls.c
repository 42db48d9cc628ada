/*
 * Calls every function of include/kpca.h once, so that a firmware linked with
 * --gc-sections keeps all the library code reachable from the C API
 * (scripts/no-panic-check.sh inspects the result for panic machinery).
 * Inputs come from volatile memory so nothing is folded away.
 */
#include <stddef.h>
#include <stdint.h>

#include "kpca.h"

volatile uint8_t all_calls_blob[256];
volatile float all_calls_x[8];
volatile size_t all_calls_len = 8;
volatile int32_t all_calls_sink;

int main(void)
{
    kpca_model model;
    float x[8], out[16], score = 0.0f, threshold = 0.0f;
    uint8_t blob[256], flag = 0;
    size_t dim = 0, k = 0, m = 0, t = 0, n = all_calls_len;
    uint32_t kernel = 0;
    int32_t acc = 0;
    for (size_t i = 0; i < sizeof blob; ++i) {
        blob[i] = all_calls_blob[i];
    }
    for (size_t i = 0; i < 8; ++i) {
        x[i] = all_calls_x[i];
    }
    acc += kpca_model_from_bytes(&model, blob, sizeof blob);
    acc += kpca_project(&model, x, n, out, 16);
    acc += kpca_anomaly_score(&model, x, n, &score);
    acc += kpca_project_and_score(&model, x, n, out, 16, &score);
    acc += kpca_is_anomaly(&model, x, n, &flag);
    acc += kpca_project_batch(&model, x, n, out, 16);
    acc += kpca_anomaly_score_batch(&model, x, n, out, 16);
    acc += kpca_linear_project(&model, x, n, out, 16);
    acc += kpca_linear_anomaly_score(&model, x, n, &score);
    acc += kpca_linear_project_and_score(&model, x, n, out, 16, &score);
    acc += kpca_linear_is_anomaly(&model, x, n, &flag);
    acc += kpca_polynomial_project(&model, x, n, out, 16);
    acc += kpca_polynomial_anomaly_score(&model, x, n, &score);
    acc += kpca_polynomial_project_and_score(&model, x, n, out, 16, &score);
    acc += kpca_polynomial_is_anomaly(&model, x, n, &flag);
    acc += kpca_rbf_project(&model, x, n, out, 16);
    acc += kpca_rbf_anomaly_score(&model, x, n, &score);
    acc += kpca_rbf_project_and_score(&model, x, n, out, 16, &score);
    acc += kpca_rbf_is_anomaly(&model, x, n, &flag);
    acc += kpca_laplacian_project(&model, x, n, out, 16);
    acc += kpca_laplacian_anomaly_score(&model, x, n, &score);
    acc += kpca_laplacian_project_and_score(&model, x, n, out, 16, &score);
    acc += kpca_laplacian_is_anomaly(&model, x, n, &flag);
    acc += kpca_sigmoid_project(&model, x, n, out, 16);
    acc += kpca_sigmoid_anomaly_score(&model, x, n, &score);
    acc += kpca_sigmoid_project_and_score(&model, x, n, out, 16, &score);
    acc += kpca_sigmoid_is_anomaly(&model, x, n, &flag);
    acc += kpca_cosine_project(&model, x, n, out, 16);
    acc += kpca_cosine_anomaly_score(&model, x, n, &score);
    acc += kpca_cosine_project_and_score(&model, x, n, out, 16, &score);
    acc += kpca_cosine_is_anomaly(&model, x, n, &flag);
    acc += kpca_reconstruct(&model, x, n, out, 16);
    acc += kpca_predict(&model, x, n, out, 16);
    acc += kpca_model_n_targets(&model, &t);
    acc += kpca_model_dim(&model, &dim);
    acc += kpca_model_n_components(&model, &k);
    acc += kpca_model_n_points(&model, &m);
    acc += kpca_model_threshold(&model, &threshold);
    acc += kpca_model_kernel(&model, &kernel);
    {
        static uint32_t fit_ws[256], fit_model[64];
        kpca_fit_params p = { 2u, 3u, 0.0f, 1.0f, 2u, 1u, 0.05f };
        size_t ws = 0, mb = 0, len = 0;
        p.kernel = (uint32_t)all_calls_len;
        acc += kpca_fit_sizes(n, 2, &p, &ws, &mb);
        acc += kpca_fit(x, n, 2, &p, fit_ws, ws, (uint8_t *)fit_model, mb, &len);
        acc += kpca_recalibrate((uint8_t *)fit_model, len, x, n, 0.1f, out, 16, &score);
        acc += (int32_t)(ws + mb + len);
    }
    acc += (int32_t)kpca_version();
    acc += (int32_t)kpca_status_str(acc)[0];
#ifdef KPCA_PANIC_PROBE
    {
        /* Control of scripts/no-panic-check.sh: an entry point that can panic. */
        extern uint8_t kpca_panic_probe(size_t index);
        acc += kpca_panic_probe(n);
    }
#endif
    all_calls_sink = acc + (int32_t)(dim + k + m + t + kernel + flag) + (int32_t)(score + threshold + out[0]);
    return 0;
}
