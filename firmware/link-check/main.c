/*
 * Link check: a minimal firmware calling the kpca C API on a small embedded
 * model (build/link-check/<target>/bench_model.c, written by
 * cargo xtask gen-model bench). Built by scripts/link-check.sh for Cortex-M0+
 * (thumbv6m-none-eabi) and RV32IMAC (riscv32imac-unknown-none-elf); linking
 * with --gc-sections and no undefined symbols is the proof, it is not run.
 *
 * The results go to volatile globals so that nothing is optimised away; main
 * returns 0 when every coordinate and score matches the host's.
 */
#include <stddef.h>
#include <stdint.h>

#include "bench_model.h"
#include "kpca.h"

/* The header's stated struct size, for this (32-bit) target. */
typedef char kpca_model_size_is_as_stated[(sizeof(kpca_model) == KPCA_MODEL_SIZE) ? 1 : -1];

kpca_status volatile link_check_status;
const char *volatile link_check_message;
uint32_t volatile link_check_mismatches;
float volatile link_check_last_score;

static float abs_f(float v) { return v < 0.0f ? -v : v; }

static int close_to(float got, float want) {
    return abs_f(got - want) <= 1e-4f * (1.0f + abs_f(want));
}

int main(void) {
    static kpca_model model;
    float y[BENCH_K];
    float score = 0.0f;
    uint32_t mismatches = 0;
    kpca_status status = kpca_model_from_bytes(&model, bench_model_blob, bench_model_blob_len);
    for (size_t i = 0; status == KPCA_OK && i < BENCH_N_TEST; i++) {
        const float *x = &bench_xs[i * BENCH_D];
        status = kpca_project(&model, x, BENCH_D, y, BENCH_K);
        if (status != KPCA_OK) {
            break;
        }
        status = kpca_anomaly_score(&model, x, BENCH_D, &score);
        if (status != KPCA_OK) {
            break;
        }
        for (size_t l = 0; l < BENCH_K; l++) {
            mismatches += !close_to(y[l], bench_expected_y[i * BENCH_K + l]);
        }
        mismatches += !close_to(score, bench_expected_e[i]);
    }
    link_check_status = status;
    link_check_message = kpca_status_str(status);
    link_check_mismatches = mismatches;
    link_check_last_score = score;
    return status == KPCA_OK && mismatches == 0 ? 0 : 1;
}
