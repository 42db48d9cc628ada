/*
 * Flash footprint probe: with WITH_KPCA=1 it loads the model blob, projects one
 * vector and scores it through libkpca.a (kpca_project, which serves every
 * kernel); with WITH_KPCA=2 the same through the model's kernel's entry points
 * (BENCH_PROJECT, BENCH_ANOMALY_SCORE: kpca_rbf_project and so on, which link
 * one kernel's code); with WITH_KPCA=3 the generated model
 * (bench_model_model, a ready const kpca_model: no kpca_model_from_bytes, so
 * no loader is linked) through the kernel's entry points, and with
 * WITH_KPCA=4 the generated model through kpca_project; with WITH_KPCA=0 the
 * same program with the three calls replaced by trivial stand-ins. The difference of the two
 * firmware sizes (text + rodata) is the library code a firmware pays for;
 * the model data is referenced by both.
 *
 * WITH_HEADS (with WITH_KPCA=1; default 0) adds calls of the optional
 * sections' entry points on the same vector (the bench model has both
 * sections): bit 1 kpca_predict, bit 2 kpca_reconstruct (3 both). A build
 * with WITH_HEADS minus the same build without is the flash those calls add
 * to a firmware that already loads, projects and scores.
 */
#include <stddef.h>
#include <stdint.h>

#include "bench_model.h"
#include "kpca.h"
#include "semihost.h"

#ifndef WITH_HEADS
#define WITH_HEADS 0
#endif
#if WITH_HEADS != 0 && WITH_KPCA != 1
#error "WITH_HEADS needs WITH_KPCA=1"
#endif

volatile float flash_sink;

int main(void)
{
    float y[BENCH_K];
    float e = 0.0f;
#if WITH_KPCA == 1
    kpca_model model;
    kpca_status st = kpca_model_from_bytes(&model, bench_model_blob, bench_model_blob_len);
    st |= kpca_project(&model, bench_xs, BENCH_D, y, BENCH_K);
    st |= kpca_anomaly_score(&model, bench_xs, BENCH_D, &e);
#if WITH_HEADS & 1
    float p[BENCH_T];
    st |= kpca_predict(&model, bench_xs, BENCH_D, p, BENCH_T);
    e += p[0];
#endif
#if WITH_HEADS & 2
    float xhat[BENCH_D];
    st |= kpca_reconstruct(&model, bench_xs, BENCH_D, xhat, BENCH_D);
    e += xhat[0];
#endif
#elif WITH_KPCA == 2
    kpca_model model;
    kpca_status st = kpca_model_from_bytes(&model, bench_model_blob, bench_model_blob_len);
    st |= BENCH_PROJECT(&model, bench_xs, BENCH_D, y, BENCH_K);
    st |= BENCH_ANOMALY_SCORE(&model, bench_xs, BENCH_D, &e);
#elif WITH_KPCA == 3
    kpca_status st = BENCH_PROJECT(&bench_model_model, bench_xs, BENCH_D, y, BENCH_K);
    st |= BENCH_ANOMALY_SCORE(&bench_model_model, bench_xs, BENCH_D, &e);
#elif WITH_KPCA == 4
    kpca_status st = kpca_project(&bench_model_model, bench_xs, BENCH_D, y, BENCH_K);
    st |= kpca_anomaly_score(&bench_model_model, bench_xs, BENCH_D, &e);
#else
    /* Stand-ins that touch the same data so nothing else changes. */
    volatile const uint8_t *blob = bench_model_blob;
    int st = blob[bench_model_blob_len - 1] == 0xFF ? 1 : 0;
    for (int l = 0; l < BENCH_K; ++l) {
        y[l] = bench_xs[l];
    }
#endif
    flash_sink = y[0] + e;
    semihost_printf("flash probe status %d\n", (int)st);
    return st == 0 ? 0 : 1;
}
