/*
 * kpca_fw: C firmware for the emulated Cortex-M4F (QEMU mps2-an386) that keeps
 * an exported kpca model in flash and runs every embedded test vector through
 * libkpca.a.
 *
 * The generated-model route: the model is the ready `const kpca_model
 * model_model` of model.c (arrays in flash, validated by the exporter on the
 * host), passed as &model_model to its kernel's own entry points
 * (MODEL_PROJECT_AND_SCORE, MODEL_IS_ANOMALY: #defined in model.h to e.g.
 * kpca_rbf_project_and_score). Nothing is loaded at start-up and no loader is
 * linked (scripts/firmware-run.sh checks the ELF with nm). kpca_predict and
 * kpca_reconstruct (print_heads) serve every kernel, so this firmware also
 * links the every-kernel code; one that only projects and scores links only
 * its kernel's.
 *
 * Built with -DKPCA_FW_BLOB=1 (kpca_fw_blob in the Makefile and CMakeLists.txt
 * here) it takes the run-time blob route instead, as a firmware does whose
 * model arrives over the air or from a file system: model_blob is checked in
 * full and loaded in place by kpca_model_from_bytes, then used through
 * kpca_project_and_score / kpca_is_anomaly (every kernel). Same output.
 *
 * Generated inputs (see scripts/firmware-run.sh):
 *   model.h / model.c     `kpca export --format c --name model` (or `cargo xtask
 *                         gen-model clib`): model_model, the MODEL_* macros and
 *                         model_blob
 *   vectors.h / vectors.c the test vectors, row-major, VECTORS_ROWS x VECTORS_DIM
 *
 * For each vector it prints one line "row y_1 ... y_k score flag" (9 significant
 * digits, enough to round-trip a float; flag = 1 when the score is above the
 * model's threshold), then, when the model has the optional sections,
 * "p row p_1 ... p_t" (kpca_predict) and "r row xhat_1 ... xhat_d"
 * (kpca_reconstruct), and exits 0 when every call returned KPCA_OK.
 */
#include <stddef.h>
#include <stdint.h>

#include "kpca.h"
#include "model.h"
#include "semihost.h"
#include "vectors.h"

#ifndef KPCA_FW_BLOB
#define KPCA_FW_BLOB 0
#endif
#if KPCA_FW_BLOB
/* The run-time blob route: the entry points that serve every kernel. */
#define FW_PROJECT_AND_SCORE kpca_project_and_score
#define FW_IS_ANOMALY kpca_is_anomaly
#else
/* The generated-model route: the model's kernel's own entry points. */
#define FW_PROJECT_AND_SCORE MODEL_PROJECT_AND_SCORE
#define FW_IS_ANOMALY MODEL_IS_ANOMALY
#endif

/* kpca_status is a fixed-width integer: the same size with -fshort-enums. */
typedef char kpca_status_is_32_bits[(sizeof(kpca_status) == 4) ? 1 : -1];
/* The header's stated struct size for 32-bit targets. */
typedef char kpca_model_size_is_as_stated[(sizeof(kpca_model) == KPCA_MODEL_SIZE_ILP32) ? 1 : -1];
/* The model's input dimension is the vectors' (model.h's MODEL_DIM). */
typedef char model_dim_is_vectors_dim[(MODEL_DIM == VECTORS_DIM) ? 1 : -1];

/* One line of `n` floats after a tag and the row number. */
static void print_row(const char *tag, size_t row, const float *v, size_t n)
{
    semihost_printf("%s %u", tag, (unsigned)row);
    for (size_t i = 0; i < n; ++i) {
        semihost_printf(" %.9g", (double)v[i]);
    }
    semihost_printf("\n");
}

/* The regression predictions and the pre-image of `x`, when the model has
 * those sections. */
static kpca_status print_heads(const kpca_model *model, size_t row, const float *x)
{
    float p[KPCA_MAX_TARGETS];
    float x_hat[VECTORS_DIM];
    kpca_status st = KPCA_OK;
    if (model->n_targets > 0) {
        st = kpca_predict(model, x, VECTORS_DIM, p, KPCA_MAX_TARGETS);
        if (st == KPCA_OK) {
            print_row("p", row, p, model->n_targets);
        }
    }
    if (st == KPCA_OK && model->n_preimage > 0) {
        st = kpca_reconstruct(model, x, VECTORS_DIM, x_hat, VECTORS_DIM);
        if (st == KPCA_OK) {
            print_row("r", row, x_hat, VECTORS_DIM);
        }
    }
    if (st != KPCA_OK) {
        semihost_printf("row %u heads: %s (%d)\n", (unsigned)row, kpca_status_str(st), (int)st);
    }
    return st;
}

int main(void)
{
    float y[KPCA_MAX_COMPONENTS];
    size_t dim = 0, k = 0;
    float threshold = 0.0f;
    int anomalies = 0;
#if KPCA_FW_BLOB
    /* The run-time blob route: check the blob in full, once, and load it in
     * place (the record points into the blob; no copy, no heap). */
    kpca_model loaded;
    const kpca_model *model = &loaded;
    kpca_status st = kpca_model_from_bytes(&loaded, model_blob, model_blob_len);
    if (st != KPCA_OK) {
        semihost_printf("kpca_model_from_bytes: %s (%d)\n", kpca_status_str(st), (int)st);
        return 1;
    }
    st = kpca_model_dim(model, &dim);
#else
    /* The generated model: ready in flash, nothing to load. */
    const kpca_model *model = &model_model;
    kpca_status st = kpca_model_dim(model, &dim);
#endif
    if (st == KPCA_OK) {
        st = kpca_model_n_components(model, &k);
    }
    if (st == KPCA_OK) {
        st = kpca_model_threshold(model, &threshold);
    }
    if (st != KPCA_OK || dim != VECTORS_DIM) {
        semihost_printf("model dims: %s, d = %u (vectors have %u)\n", kpca_status_str(st),
                        (unsigned)dim, (unsigned)VECTORS_DIM);
        return 1;
    }
    semihost_printf("model: d=%u k=%u threshold=%.9g, %u vectors\n", (unsigned)dim, (unsigned)k,
                    (double)threshold, (unsigned)VECTORS_ROWS);
    for (size_t row = 0; row < VECTORS_ROWS; ++row) {
        float score = 0.0f;
        uint8_t flag = 0;
        const float *x = vectors + row * VECTORS_DIM;
        st = FW_PROJECT_AND_SCORE(model, x, VECTORS_DIM, y, KPCA_MAX_COMPONENTS, &score);
        if (st == KPCA_OK && threshold > 0.0f) {
            st = FW_IS_ANOMALY(model, x, VECTORS_DIM, &flag);
        }
        if (st != KPCA_OK) {
            semihost_printf("row %u: %s (%d)\n", (unsigned)row, kpca_status_str(st), (int)st);
            return 1;
        }
        anomalies += flag;
        semihost_printf("%u", (unsigned)row);
        for (size_t l = 0; l < k; ++l) {
            semihost_printf(" %.9g", (double)y[l]);
        }
        semihost_printf(" %.9g %u\n", (double)score, (unsigned)flag);
        if (print_heads(model, row, x) != KPCA_OK) {
            return 1;
        }
    }
    semihost_printf("done: %u vectors, %d above threshold\n", (unsigned)VECTORS_ROWS, anomalies);
    return 0;
}
