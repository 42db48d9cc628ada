/*
 * learn_fw.c: the demo learned on the device. The emulated Cortex-M4F fits
 * kernel PCA (kpca_fit: RBF, gamma 1/d, the host model's k, standardised,
 * false-alarm rate LEARN_RATE) to the demo's training windows (train.h),
 * scores every test window (vectors.h) with the model it learned, and
 * compares, on the same device, with the model fitted on the host (model.h,
 * `kpca export --format c`: its generated model model_model, ready in flash):
 * the eigenvalues (relative), the coordinates (relative to each column's
 * largest host magnitude, signs included), the anomaly scores (relative to
 * max(largest host score, 1), the RBF's k(x, x)) and the ROC AUC of both against the labels (labels.h, 1 =
 * anomalous). Prints `l ROW y1..yk score flag` per window and a summary;
 * exits 0 when every difference is within its tolerance, 1 otherwise.
 * The learned model is a blob kpca_fit writes at run time, so it takes the
 * run-time blob route: kpca_model_from_bytes checks it and loads it in place.
 * Built and run by scripts/firmware-learn.sh.
 */
#include <stddef.h>
#include <stdint.h>

#include "kpca.h"
#include "labels.h"
#include "model.h"
#include "semihost.h"
#include "stack.h"
#include "train.h"
#include "vectors.h"

#ifndef LEARN_RATE
#define LEARN_RATE 0.01f
#endif
#define EIG_REL_TOL 1e-4f
#define COORD_REL_TOL 1e-3f
#define SCORE_REL_TOL 1e-3f
#define AUC_TOL 0.005f

#define N TRAIN_ROWS
#define D TRAIN_DIM
#define WS_FLOATS (N * N + N * (D + KPCA_MAX_COMPONENTS + 6) + 2 * D + 2 * KPCA_MAX_COMPONENTS)
#define MODEL_WORDS (16 + 2 * D + N * (D + KPCA_MAX_COMPONENTS + 2) + 2 * KPCA_MAX_COMPONENTS + 1)

typedef char same_dimension[(TRAIN_DIM == VECTORS_DIM && LABELS_ROWS == VECTORS_ROWS) ? 1 : -1];

static float workspace[WS_FLOATS];
static uint32_t learned_blob[MODEL_WORDS];
static float host_scores[VECTORS_ROWS], learned_scores[VECTORS_ROWS];

static float absf(float v) { return v < 0.0f ? -v : v; }
static float maxf(float a, float b) { return a > b ? a : b; }

/* ROC AUC of `scores` against labels (1 = anomalous), ties counted half. */
static float roc_auc(const float *scores)
{
    uint32_t pairs = 0, wins2 = 0;
    for (size_t i = 0; i < VECTORS_ROWS; i++) {
        if (labels[i] < 0.5f) {
            continue;
        }
        for (size_t j = 0; j < VECTORS_ROWS; j++) {
            if (labels[j] >= 0.5f) {
                continue;
            }
            pairs++;
            wins2 += scores[i] > scores[j] ? 2u : (scores[i] == scores[j] ? 1u : 0u);
        }
    }
    return pairs ? (float)wins2 / (2.0f * (float)pairs) : 0.0f;
}

static kpca_status learn(kpca_model *learned, const kpca_model *host, uint32_t *stack)
{
    kpca_fit_params p;
    size_t ws = 0, mb = 0, len = 0;
    kpca_status st;
    p.kernel = 2;
    p.degree = 3;
    p.gamma = 0.0f;
    p.coef0 = 1.0f;
    p.n_components = host->n_components;
    p.standardize = 1;
    p.false_alarm_rate = LEARN_RATE;
    st = kpca_fit_sizes(N, D, &p, &ws, &mb);
    if (st == KPCA_OK && (ws > sizeof workspace || mb > sizeof learned_blob)) {
        st = KPCA_ERR_WORKSPACE_TOO_SMALL;
    }
    if (st == KPCA_OK) {
        stack_paint();
        st = kpca_fit(train, N * D, D, &p, workspace, ws, (uint8_t *)learned_blob, mb, &len);
        *stack = stack_high_water();
        semihost_printf("learned: n = %u, d = %u, k = %u; workspace %u B, model %u B, stack %u B\n",
                        (unsigned)N, (unsigned)D, (unsigned)p.n_components, (unsigned)ws, (unsigned)mb,
                        (unsigned)*stack);
    }
    if (st == KPCA_OK) {
        st = kpca_model_from_bytes(learned, (const uint8_t *)learned_blob, len);
    }
    return st;
}

/* Scores every test window with both models; the largest coordinate and
 * score differences relative to their scales into err[0], err[1]. */
static kpca_status score_all(const kpca_model *learned, const kpca_model *host, float err[2])
{
    float y[KPCA_MAX_COMPONENTS], yh[KPCA_MAX_COMPONENTS];
    float col_scale[KPCA_MAX_COMPONENTS] = { 0 }, col_diff[KPCA_MAX_COMPONENTS] = { 0 };
    float score_scale = 1.0f, score_diff = 0.0f;
    size_t k = learned->n_components;
    for (size_t i = 0; i < VECTORS_ROWS; i++) {
        const float *x = vectors + i * VECTORS_DIM;
        uint8_t flag = 0;
        kpca_status st = kpca_project_and_score(learned, x, VECTORS_DIM, y, KPCA_MAX_COMPONENTS, &learned_scores[i]);
        if (st == KPCA_OK) {
            st = kpca_project_and_score(host, x, VECTORS_DIM, yh, KPCA_MAX_COMPONENTS, &host_scores[i]);
        }
        if (st == KPCA_OK) {
            st = kpca_is_anomaly(learned, x, VECTORS_DIM, &flag);
        }
        if (st != KPCA_OK) {
            semihost_printf("row %u: %s (%d)\n", (unsigned)i, kpca_status_str(st), (int)st);
            return st;
        }
        semihost_printf("l %u", (unsigned)i);
        for (size_t l = 0; l < k; l++) {
            semihost_printf(" %.9g", (double)y[l]);
            col_scale[l] = maxf(col_scale[l], absf(yh[l]));
            col_diff[l] = maxf(col_diff[l], absf(y[l] - yh[l]));
        }
        semihost_printf(" %.9g %u\n", (double)learned_scores[i], (unsigned)flag);
        score_scale = maxf(score_scale, absf(host_scores[i]));
        score_diff = maxf(score_diff, absf(learned_scores[i] - host_scores[i]));
    }
    err[0] = 0.0f;
    for (size_t l = 0; l < k; l++) {
        err[0] = maxf(err[0], col_scale[l] > 0.0f ? col_diff[l] / col_scale[l] : col_diff[l]);
    }
    err[1] = score_diff / score_scale;
    return KPCA_OK;
}

int main(void)
{
    /* The host-fitted model: the generated one, nothing to load. */
    const kpca_model *host = &model_model;
    kpca_model learned;
    uint32_t stack = 0;
    float err[2] = { 0.0f, 0.0f }, eig = 0.0f;
    kpca_status st = learn(&learned, host, &stack);
    if (st == KPCA_OK) {
        st = score_all(&learned, host, err);
    }
    if (st != KPCA_OK) {
        semihost_printf("learn_fw: %s (%d)\n", kpca_status_str(st), (int)st);
        return 1;
    }
    for (size_t l = 0; l < learned.n_components; l++) {
        eig = maxf(eig, absf(learned.eigenvalues[l] - host->eigenvalues[l]) / absf(host->eigenvalues[l]));
    }
    {
        float auc_host = roc_auc(host_scores), auc_learned = roc_auc(learned_scores);
        float auc_diff = absf(auc_learned - auc_host);
        int ok = eig <= EIG_REL_TOL && err[0] <= COORD_REL_TOL && err[1] <= SCORE_REL_TOL && auc_diff <= AUC_TOL;
        semihost_printf("learned vs host-fitted: eigenvalues %.2e (tolerance %.0e), coordinates %.2e (%.0e), "
                        "scores %.2e (%.0e)\n",
                        (double)eig, (double)EIG_REL_TOL, (double)err[0], (double)COORD_REL_TOL, (double)err[1],
                        (double)SCORE_REL_TOL);
        semihost_printf("ROC AUC: learned on the device %.6f, fitted on the host %.6f, difference %.6f (tolerance %.3f)\n",
                        (double)auc_learned, (double)auc_host, (double)auc_diff, (double)AUC_TOL);
        semihost_printf("learn_fw: %s\n", ok ? "OK" : "FAILED");
        return ok ? 0 : 1;
    }
}
