/*
 * status_tests.c: every kpca_status through the C header, from C.
 *
 * NULL for each pointer argument of every function, zero and short lengths,
 * wrong dimensions, NaN and infinity in inputs, every kind of blob corruption
 * (each single-byte change of a valid blob, every truncation, header edits with
 * the CRC recomputed here for each header-check code), misaligned pointers,
 * unloaded model structs (and loaded ones with the marker, sizes or kernel
 * id changed), an unset threshold; outputs and the
 * model struct must be untouched on every failure. A table at the end checks
 * that every status code 1..38 was produced by at least one call, except the
 * three that the C tests cannot reach (see NOT_VIA_C_API). The on-device fit
 * (kpca_fit_sizes, kpca_fit, kpca_recalibrate) has its own section.
 *
 * The valid models come from `cargo xtask gen-model c-tests` (c_test_models.h/.c,
 * generated before the build). Built and run by scripts/c-sanitize.sh with
 * -std=c99 -Wall -Wextra -Wpedantic -Werror and ASan/UBSan. Prints one line per
 * failure and a closing "N passed, M failed" line; exits 1 on any failure.
 *
 * Misaligned pointers are made by converting a byte address that is 1..3 past
 * a 4-byte boundary to float * (or size_t *): the library must refuse them
 * without reading or writing through them, with KPCA_ERR_MISALIGNED for the
 * model blob (to load, to recalibrate, or the buffer a fit writes it into) and
 * KPCA_ERR_MISALIGNED_BUFFER for every other array or pointer (inputs,
 * outputs, scores, getter outputs, workspace, scratch).
 */
#include "kpca.h"
#include "c_test_models.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* What the header states, checked by the compiler (C99: a negative array size
 * is an error): the struct size for this pointer width, the version number. */
typedef char kpca_model_size_is_as_stated[(sizeof(kpca_model) == KPCA_MODEL_SIZE) ? 1 : -1];
#if KPCA_VERSION != KPCA_VERSION_MAJOR * 10000 + KPCA_VERSION_MINOR * 100 + KPCA_VERSION_PATCH
#error "KPCA_VERSION disagrees with its parts"
#endif

/* ---------------------------------------------------------------- harness */

static unsigned n_passed, n_failed;
#define N_CODES 38 /* the status codes 1..N_CODES */
static unsigned long seen[N_CODES + 1]; /* calls that returned each status */
static const char *context = "";

static void check_at(int ok, const char *what, int line)
{
    if (ok) {
        n_passed++;
    } else {
        n_failed++;
        printf("FAIL line %d [%s]: %s\n", line, context, what);
    }
}
#define CHECK(cond) check_at((cond) != 0, #cond, __LINE__)

static void note(kpca_status st)
{
    if (st >= 0 && st <= N_CODES) {
        seen[st]++;
    }
}

static void expect_at(kpca_status got, kpca_status want, const char *call, int line)
{
    note(got);
    if (got == want) {
        n_passed++;
    } else {
        n_failed++;
        printf("FAIL line %d [%s]: %s returned %d (%s), expected %d (%s)\n", line, context, call,
               (int)got, kpca_status_str(got), (int)want, kpca_status_str(want));
    }
}
#define EXPECT(call, want) expect_at((call), (want), #call, __LINE__)

/* ----------------------------------------------------------- blob helpers */

#define STORE_WORDS 2048
static uint32_t store[STORE_WORDS]; /* 4-byte aligned scratch for blobs */
static uint8_t *const scratch = (uint8_t *)store;

static const float SENTINEL = -12345.5f;

static void fill(float *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        p[i] = SENTINEL;
    }
}

static int untouched(const float *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (!(p[i] == SENTINEL)) {
            return 0;
        }
    }
    return 1;
}

static uint32_t crc32_ieee(const uint8_t *p, size_t n)
{
    uint32_t crc = 0xFFFFFFFFu;
    size_t i;
    int b;
    for (i = 0; i < n; i++) {
        crc ^= p[i];
        for (b = 0; b < 8; b++) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

static void put_u16(uint8_t *b, size_t at, uint16_t v)
{
    b[at] = (uint8_t)(v & 0xFFu);
    b[at + 1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *b, size_t at, uint32_t v)
{
    int i;
    for (i = 0; i < 4; i++) {
        b[at + (size_t)i] = (uint8_t)(v >> (8 * i));
    }
}

static uint32_t get_u32(const uint8_t *b, size_t at)
{
    return (uint32_t)b[at] | ((uint32_t)b[at + 1] << 8) | ((uint32_t)b[at + 2] << 16) |
           ((uint32_t)b[at + 3] << 24);
}

static void put_f32(uint8_t *b, size_t at, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    put_u32(b, at, bits);
}

static void fix_crc(uint8_t *b, size_t len)
{
    put_u32(b, len - 4, crc32_ieee(b, len - 4));
}

static const struct c_test_model *tm(int index)
{
    return &c_test_models[index];
}

/* Copies a model's blob into the aligned scratch buffer; returns its length. */
static size_t copy_blob(const struct c_test_model *m)
{
    memcpy(scratch, m->words, m->blob_len);
    return m->blob_len;
}

/* Loads `len` bytes at `blob`; the struct must be untouched unless KPCA_OK. */
static kpca_status try_load(struct kpca_model *model, const uint8_t *blob, size_t len, int *struct_ok)
{
    struct kpca_model before;
    kpca_status st;
    memset(model, 0xA5, sizeof *model);
    memcpy(&before, model, sizeof before);
    st = kpca_model_from_bytes(model, blob, len);
    *struct_ok = st == KPCA_OK || memcmp(&before, model, sizeof before) == 0;
    return st;
}

static void expect_load_at(const uint8_t *blob, size_t len, kpca_status want, const char *what, int line)
{
    struct kpca_model model;
    int struct_ok;
    kpca_status st = try_load(&model, blob, len, &struct_ok);
    expect_at(st, want, what, line);
    check_at(struct_ok, "model struct untouched on failure", line);
}
#define EXPECT_LOAD(blob, len, want, what) expect_load_at((blob), (len), (want), (what), __LINE__)

/* The loaded model of a test model (blob read in place from its words). */
static struct kpca_model loaded(const struct c_test_model *m)
{
    struct kpca_model model;
    memset(&model, 0, sizeof model);
    EXPECT(kpca_model_from_bytes(&model, (const uint8_t *)m->words, m->blob_len), KPCA_OK);
    return model;
}

/* ------------------------------------------------------------ valid models */

/* The single-kernel entry points, indexed by kernel id (KPCA_KERNEL_*). */
static const struct {
    kpca_status (*project)(const kpca_model *, const float *, size_t, float *, size_t);
    kpca_status (*score)(const kpca_model *, const float *, size_t, float *);
    kpca_status (*both)(const kpca_model *, const float *, size_t, float *, size_t, float *);
    kpca_status (*flag)(const kpca_model *, const float *, size_t, uint8_t *);
} by_kernel[6] = {
    { kpca_linear_project, kpca_linear_anomaly_score, kpca_linear_project_and_score, kpca_linear_is_anomaly },
    { kpca_polynomial_project, kpca_polynomial_anomaly_score, kpca_polynomial_project_and_score,
      kpca_polynomial_is_anomaly },
    { kpca_rbf_project, kpca_rbf_anomaly_score, kpca_rbf_project_and_score, kpca_rbf_is_anomaly },
    { kpca_laplacian_project, kpca_laplacian_anomaly_score, kpca_laplacian_project_and_score,
      kpca_laplacian_is_anomaly },
    { kpca_sigmoid_project, kpca_sigmoid_anomaly_score, kpca_sigmoid_project_and_score, kpca_sigmoid_is_anomaly },
    { kpca_cosine_project, kpca_cosine_anomaly_score, kpca_cosine_project_and_score, kpca_cosine_is_anomaly },
};

/* The model's kernel's entry points give the host's results bit for bit
 * (like kpca_project); every other kernel's refuse it with
 * KPCA_ERR_KERNEL_MISMATCH and write nothing. */
static void check_kernel_entries(const struct c_test_model *m, const struct kpca_model *model, size_t j)
{
    size_t d = m->dim, k = m->n_components, l, kid;
    const float *x = m->xs + j * d;
    float out[KPCA_MAX_COMPONENTS + 1], score = SENTINEL;
    uint8_t flag = 7;
    for (kid = 0; kid < 6; kid++) {
        int same = 1;
        fill(out, k + 1);
        score = SENTINEL;
        flag = 7;
        if (kid != m->kernel) {
            EXPECT(by_kernel[kid].project(model, x, d, out, k), KPCA_ERR_KERNEL_MISMATCH);
            EXPECT(by_kernel[kid].score(model, x, d, &score), KPCA_ERR_KERNEL_MISMATCH);
            EXPECT(by_kernel[kid].both(model, x, d, out, k, &score), KPCA_ERR_KERNEL_MISMATCH);
            EXPECT(by_kernel[kid].flag(model, x, d, &flag), KPCA_ERR_KERNEL_MISMATCH);
            CHECK(untouched(out, k + 1) && score == SENTINEL && flag == 7);
            continue;
        }
        EXPECT(by_kernel[kid].project(model, x, d, out, k), KPCA_OK);
        for (l = 0; l < k; l++) {
            same &= out[l] == m->ys[j * k + l];
        }
        EXPECT(by_kernel[kid].score(model, x, d, &score), KPCA_OK);
        CHECK(same && score == m->scores[j]);
        fill(out, k + 1);
        EXPECT(by_kernel[kid].both(model, x, d, out, k, &score), KPCA_OK);
        for (l = 0; l < k; l++) {
            same &= out[l] == m->ys[j * k + l];
        }
        CHECK(same && score == m->scores[j] && out[k] == SENTINEL);
        if (m->threshold > 0.0f) {
            EXPECT(by_kernel[kid].flag(model, x, d, &flag), KPCA_OK);
            CHECK(flag == m->flags[j]);
        } else {
            EXPECT(by_kernel[kid].flag(model, x, d, &flag), KPCA_ERR_THRESHOLD_UNSET);
        }
        /* The shared checks still come first: a short output, NULL input. */
        EXPECT(by_kernel[kid].project(model, x, d, out, k - 1), KPCA_ERR_OUTPUT_LENGTH);
        EXPECT(by_kernel[kid].project(model, NULL, d, out, k), KPCA_ERR_NULL_POINTER);
    }
}

static void test_valid_models(void)
{
    size_t i, j, l;
    for (i = 0; i < c_test_n_models; i++) {
        const struct c_test_model *m = tm((int)i);
        struct kpca_model model = loaded(m);
        size_t d = m->dim, k = m->n_components, v;
        float out[KPCA_MAX_COMPONENTS + 1], both[KPCA_MAX_COMPONENTS + 1], score, score2, thr = 0.0f;
        float outs[C_TEST_N_VECTORS * KPCA_MAX_COMPONENTS + 1], scores[C_TEST_N_VECTORS + 1];
        uint8_t flag;
        uint32_t kernel = 99;
        context = m->name;
        EXPECT(kpca_model_dim(&model, &v), KPCA_OK);
        CHECK(v == d);
        EXPECT(kpca_model_n_components(&model, &v), KPCA_OK);
        CHECK(v == k);
        EXPECT(kpca_model_n_points(&model, &v), KPCA_OK);
        CHECK(v == m->n_points);
        EXPECT(kpca_model_threshold(&model, &thr), KPCA_OK);
        CHECK(thr == m->threshold);
        EXPECT(kpca_model_kernel(&model, &kernel), KPCA_OK);
        CHECK(kernel == m->kernel);
        CHECK((model.mean != NULL) == (m->standardized != 0));
        CHECK(model.dim == d && model.n_components == k && model.n_points == m->n_points);
        for (j = 0; j < C_TEST_N_VECTORS; j++) {
            const float *x = m->xs + j * d;
            int same = 1;
            fill(out, k + 1);
            fill(both, k + 1);
            EXPECT(kpca_project(&model, x, d, out, k + 1), KPCA_OK);
            EXPECT(kpca_anomaly_score(&model, x, d, &score), KPCA_OK);
            EXPECT(kpca_project_and_score(&model, x, d, both, k, &score2), KPCA_OK);
            for (l = 0; l < k; l++) {
                same &= out[l] == m->ys[j * k + l] && both[l] == out[l];
            }
            CHECK(same); /* bit-for-bit the host's f32 results */
            CHECK(out[k] == SENTINEL && both[k] == SENTINEL);
            CHECK(score == m->scores[j] && score2 == score);
            flag = 7;
            if (m->threshold > 0.0f) {
                EXPECT(kpca_is_anomaly(&model, x, d, &flag), KPCA_OK);
                CHECK(flag == m->flags[j]);
            } else {
                EXPECT(kpca_is_anomaly(&model, x, d, &flag), KPCA_ERR_THRESHOLD_UNSET);
                CHECK(flag == 7);
            }
            check_kernel_entries(m, &model, j);
        }
        /* Batches are the single calls, row by row; nothing past n*k written. */
        fill(outs, C_TEST_N_VECTORS * k + 1);
        fill(scores, C_TEST_N_VECTORS + 1);
        EXPECT(kpca_project_batch(&model, m->xs, C_TEST_N_VECTORS * d, outs, C_TEST_N_VECTORS * k + 1),
               KPCA_OK);
        EXPECT(kpca_anomaly_score_batch(&model, m->xs, C_TEST_N_VECTORS * d, scores, C_TEST_N_VECTORS + 1),
               KPCA_OK);
        CHECK(memcmp(outs, m->ys, C_TEST_N_VECTORS * k * sizeof(float)) == 0);
        CHECK(memcmp(scores, m->scores, C_TEST_N_VECTORS * sizeof(float)) == 0);
        CHECK(outs[C_TEST_N_VECTORS * k] == SENTINEL && scores[C_TEST_N_VECTORS] == SENTINEL);
        /* An empty batch is zero rows: OK, nothing written. */
        EXPECT(kpca_project_batch(&model, m->xs, 0, outs, 0), KPCA_OK);
        EXPECT(kpca_anomaly_score_batch(&model, NULL, 0, NULL, 0), KPCA_OK);
    }
    context = "";
}

/* ----------------------------------------------------------- NULL pointers */

static void test_null_pointers(void)
{
    const struct c_test_model *m = tm(C_TEST_MODEL_RBF);
    struct kpca_model model = loaded(m), fresh;
    size_t d = m->dim, k = m->n_components, v = 77;
    float out[KPCA_MAX_COMPONENTS], score = SENTINEL, thr = SENTINEL;
    uint8_t flag = 7;
    uint32_t kernel = 77;
    const float *x = m->xs;
    context = "NULL pointers";
    fill(out, k);
    memset(&fresh, 0, sizeof fresh);

    /* kpca_model_from_bytes(model, blob, len) */
    EXPECT(kpca_model_from_bytes(NULL, (const uint8_t *)m->words, m->blob_len), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_model_from_bytes(&fresh, NULL, m->blob_len), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_model_from_bytes(NULL, NULL, m->blob_len), KPCA_ERR_NULL_POINTER);
    /* NULL with length 0 is an empty blob: too short. */
    EXPECT(kpca_model_from_bytes(&fresh, NULL, 0), KPCA_ERR_TRUNCATED);
    CHECK(fresh.magic == 0);

    /* kpca_project(model, x, x_len, out, out_len) */
    EXPECT(kpca_project(NULL, x, d, out, k), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_project(&model, NULL, d, out, k), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_project(&model, x, d, NULL, k), KPCA_ERR_NULL_POINTER);

    /* kpca_anomaly_score(model, x, x_len, score) */
    EXPECT(kpca_anomaly_score(NULL, x, d, &score), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_anomaly_score(&model, NULL, d, &score), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_anomaly_score(&model, x, d, NULL), KPCA_ERR_NULL_POINTER);

    /* kpca_project_and_score(model, x, x_len, out, out_len, score) */
    EXPECT(kpca_project_and_score(NULL, x, d, out, k, &score), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_project_and_score(&model, NULL, d, out, k, &score), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_project_and_score(&model, x, d, NULL, k, &score), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_project_and_score(&model, x, d, out, k, NULL), KPCA_ERR_NULL_POINTER);

    /* kpca_is_anomaly(model, x, x_len, is_anomaly) */
    EXPECT(kpca_is_anomaly(NULL, x, d, &flag), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_is_anomaly(&model, NULL, d, &flag), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_is_anomaly(&model, x, d, NULL), KPCA_ERR_NULL_POINTER);

    /* kpca_project_batch(model, xs, xs_len, out, out_len) */
    EXPECT(kpca_project_batch(NULL, x, d, out, k), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_project_batch(&model, NULL, d, out, k), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_project_batch(&model, x, d, NULL, k), KPCA_ERR_NULL_POINTER);

    /* kpca_anomaly_score_batch(model, xs, xs_len, scores, scores_len) */
    EXPECT(kpca_anomaly_score_batch(NULL, x, d, out, 1), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_anomaly_score_batch(&model, NULL, d, out, 1), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_anomaly_score_batch(&model, x, d, NULL, 1), KPCA_ERR_NULL_POINTER);

    /* The getters: (model, out). */
    EXPECT(kpca_model_dim(NULL, &v), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_model_dim(&model, NULL), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_model_n_components(NULL, &v), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_model_n_components(&model, NULL), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_model_n_points(NULL, &v), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_model_n_points(&model, NULL), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_model_threshold(NULL, &thr), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_model_threshold(&model, NULL), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_model_kernel(NULL, &kernel), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_model_kernel(&model, NULL), KPCA_ERR_NULL_POINTER);

    CHECK(untouched(out, k) && score == SENTINEL && thr == SENTINEL);
    CHECK(flag == 7 && v == 77 && kernel == 77);
    context = "";
}

/* ----------------------------------------------------------------- lengths */

static void test_lengths(void)
{
    const struct c_test_model *m = tm(C_TEST_MODEL_SIGMOID);
    struct kpca_model model = loaded(m);
    size_t d = m->dim, k = m->n_components;
    float x[16], xs[64], out[64], score = SENTINEL;
    uint8_t flag = 7;
    size_t i;
    context = "lengths";
    for (i = 0; i < 16; i++) {
        x[i] = 0.25f;
    }
    for (i = 0; i < 64; i++) {
        xs[i] = 0.125f;
    }
    fill(out, 64);

    /* Input length: 0 (with a pointer and with NULL), d - 1, d + 1. */
    EXPECT(kpca_project(&model, x, 0, out, k), KPCA_ERR_INPUT_LENGTH);
    EXPECT(kpca_project(&model, NULL, 0, out, k), KPCA_ERR_INPUT_LENGTH);
    EXPECT(kpca_project(&model, x, d - 1, out, k), KPCA_ERR_INPUT_LENGTH);
    EXPECT(kpca_project(&model, x, d + 1, out, k), KPCA_ERR_INPUT_LENGTH);
    EXPECT(kpca_anomaly_score(&model, x, 0, &score), KPCA_ERR_INPUT_LENGTH);
    EXPECT(kpca_anomaly_score(&model, x, d + 1, &score), KPCA_ERR_INPUT_LENGTH);
    EXPECT(kpca_project_and_score(&model, x, d - 1, out, k, &score), KPCA_ERR_INPUT_LENGTH);
    EXPECT(kpca_is_anomaly(&model, x, d + 1, &flag), KPCA_ERR_INPUT_LENGTH);
    EXPECT(kpca_is_anomaly(&model, NULL, 0, &flag), KPCA_ERR_INPUT_LENGTH);

    /* Output length: 0 (with a pointer and with NULL), k - 1. */
    EXPECT(kpca_project(&model, x, d, out, 0), KPCA_ERR_OUTPUT_LENGTH);
    EXPECT(kpca_project(&model, x, d, NULL, 0), KPCA_ERR_OUTPUT_LENGTH);
    EXPECT(kpca_project(&model, x, d, out, k - 1), KPCA_ERR_OUTPUT_LENGTH);
    EXPECT(kpca_project_and_score(&model, x, d, out, k - 1, &score), KPCA_ERR_OUTPUT_LENGTH);
    EXPECT(kpca_project_and_score(&model, x, d, NULL, 0, &score), KPCA_ERR_OUTPUT_LENGTH);

    /* Batches: a partial row, short outputs (one row short, one value short). */
    EXPECT(kpca_project_batch(&model, xs, d + 1, out, 2 * k), KPCA_ERR_BATCH_LENGTH);
    EXPECT(kpca_project_batch(&model, xs, 2 * d - 1, out, 2 * k), KPCA_ERR_BATCH_LENGTH);
    EXPECT(kpca_project_batch(&model, xs, 1, out, 2 * k), KPCA_ERR_BATCH_LENGTH);
    EXPECT(kpca_anomaly_score_batch(&model, xs, d + 2, out, 2), KPCA_ERR_BATCH_LENGTH);
    EXPECT(kpca_project_batch(&model, xs, 3 * d, out, 3 * k - 1), KPCA_ERR_OUTPUT_LENGTH);
    EXPECT(kpca_project_batch(&model, xs, 3 * d, out, 2 * k), KPCA_ERR_OUTPUT_LENGTH);
    EXPECT(kpca_project_batch(&model, xs, 3 * d, NULL, 0), KPCA_ERR_OUTPUT_LENGTH);
    EXPECT(kpca_anomaly_score_batch(&model, xs, 3 * d, out, 2), KPCA_ERR_OUTPUT_LENGTH);
    EXPECT(kpca_anomaly_score_batch(&model, xs, 3 * d, NULL, 0), KPCA_ERR_OUTPUT_LENGTH);

    CHECK(untouched(out, 64) && score == SENTINEL && flag == 7);

    /* Blob lengths: empty, shorter than the magic, than the header, than declared. */
    copy_blob(m);
    EXPECT_LOAD(scratch, 0, KPCA_ERR_TRUNCATED, "empty blob");
    EXPECT_LOAD(scratch, 3, KPCA_ERR_TRUNCATED, "3 bytes");
    EXPECT_LOAD(scratch, 4, KPCA_ERR_TRUNCATED, "magic only");
    EXPECT_LOAD(scratch, 67, KPCA_ERR_TRUNCATED, "67 bytes");
    EXPECT_LOAD(scratch, 68, KPCA_ERR_TRUNCATED, "68 bytes");
    EXPECT_LOAD(scratch, m->blob_len - 1, KPCA_ERR_TRUNCATED, "one byte short");
    context = "";
}

/* --------------------------------------------------- NaN, infinity, overflow */

static void test_non_finite(void)
{
    static const int models[] = { C_TEST_MODEL_RBF, C_TEST_MODEL_RBF_STD, C_TEST_MODEL_COSINE };
    const float bad[3] = { NAN, INFINITY, -INFINITY };
    size_t mi, j, b;
    context = "non-finite input";
    for (mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
        const struct c_test_model *m = tm(models[mi]);
        struct kpca_model model = loaded(m);
        size_t d = m->dim, k = m->n_components;
        float x[16], xs[64], out[64], score = SENTINEL;
        uint8_t flag = 7;
        for (j = 0; j < d; j++) {
            for (b = 0; b < 3; b++) {
                memcpy(x, m->xs, d * sizeof(float));
                x[j] = bad[b];
                fill(out, 64);
                EXPECT(kpca_project(&model, x, d, out, k), KPCA_ERR_NON_FINITE_INPUT);
                EXPECT(kpca_anomaly_score(&model, x, d, &score), KPCA_ERR_NON_FINITE_INPUT);
                EXPECT(kpca_project_and_score(&model, x, d, out, k, &score), KPCA_ERR_NON_FINITE_INPUT);
                EXPECT(kpca_is_anomaly(&model, x, d, &flag), KPCA_ERR_NON_FINITE_INPUT);
                /* In the last row of a batch: nothing is written, not even row 0. */
                memcpy(xs, m->xs, 2 * d * sizeof(float));
                memcpy(xs + 2 * d, x, d * sizeof(float));
                EXPECT(kpca_project_batch(&model, xs, 3 * d, out, 3 * k), KPCA_ERR_NON_FINITE_INPUT);
                EXPECT(kpca_anomaly_score_batch(&model, xs, 3 * d, out, 3), KPCA_ERR_NON_FINITE_INPUT);
                CHECK(untouched(out, 64) && score == SENTINEL && flag == 7);
            }
        }
    }

    /* Polynomial overflow: NON_FINITE_RESULT, outputs untouched; in a batch the
     * rows before the failing one are written (documented). */
    context = "non-finite result";
    {
        const struct c_test_model *m = tm(C_TEST_MODEL_POLY_OVERFLOW);
        struct kpca_model model = loaded(m);
        size_t d = m->dim, k = m->n_components;
        float x[4] = { 1e5f, 1e5f, 1e5f, 1e5f }, xs[8], out[8], score = SENTINEL;
        uint8_t flag = 7;
        fill(out, 8);
        EXPECT(kpca_project(&model, x, d, out, k), KPCA_ERR_NON_FINITE_RESULT);
        EXPECT(kpca_anomaly_score(&model, x, d, &score), KPCA_ERR_NON_FINITE_RESULT);
        EXPECT(kpca_project_and_score(&model, x, d, out, k, &score), KPCA_ERR_NON_FINITE_RESULT);
        EXPECT(kpca_is_anomaly(&model, x, d, &flag), KPCA_ERR_NON_FINITE_RESULT);
        CHECK(untouched(out, 8) && score == SENTINEL && flag == 7);
        memcpy(xs, m->xs, d * sizeof(float));
        memcpy(xs + d, x, d * sizeof(float));
        EXPECT(kpca_project_batch(&model, xs, 2 * d, out, 2 * k), KPCA_ERR_NON_FINITE_RESULT);
        CHECK(memcmp(out, m->ys, k * sizeof(float)) == 0 && untouched(out + k, 8 - k));
        fill(out, 8);
        EXPECT(kpca_anomaly_score_batch(&model, xs, 2 * d, out, 2), KPCA_ERR_NON_FINITE_RESULT);
        CHECK(out[0] == m->scores[0] && untouched(out + 1, 7));
    }

    /* Huge but finite inputs, every kernel: a finite result or NON_FINITE_RESULT. */
    context = "huge finite input";
    {
        static const float huge[] = { 1e30f, -1e30f, 3.4e38f, 1e19f, 2e19f };
        size_t i, h;
        for (i = 0; i < c_test_n_models; i++) {
            const struct c_test_model *m = tm((int)i);
            struct kpca_model model = loaded(m);
            size_t d = m->dim, k = m->n_components, l;
            for (h = 0; h < sizeof huge / sizeof huge[0]; h++) {
                float x[16], out[16], score = SENTINEL;
                kpca_status st;
                int finite = 1;
                for (l = 0; l < d; l++) {
                    x[l] = (l % 2) ? huge[h] : m->xs[l];
                }
                fill(out, 16);
                st = kpca_project_and_score(&model, x, d, out, k, &score);
                note(st);
                CHECK(st == KPCA_OK || st == KPCA_ERR_NON_FINITE_RESULT);
                if (st == KPCA_OK) {
                    for (l = 0; l < k; l++) {
                        finite &= isfinite(out[l]) != 0;
                    }
                    CHECK(finite && isfinite(score));
                } else {
                    CHECK(untouched(out, 16) && score == SENTINEL);
                }
            }
        }
    }
    context = "";
}

/* --------------------------------------------------------- blob corruption */

/* Each single-byte change (all 255 other values at every offset) is refused:
 * in the payload and the CRC field exactly with CRC_MISMATCH, in the header
 * with some error. */
static void sweep_single_bytes(const struct c_test_model *m)
{
    size_t len = copy_blob(m), i;
    unsigned long accepted = 0, payload_not_crc = 0, struct_written = 0, tried = 0;
    int v;
    struct kpca_model model;
    for (i = 0; i < len; i++) {
        uint8_t orig = scratch[i];
        for (v = 0; v < 256; v++) {
            int struct_ok;
            kpca_status st;
            if ((uint8_t)v == orig) {
                continue;
            }
            scratch[i] = (uint8_t)v;
            st = try_load(&model, scratch, len, &struct_ok);
            note(st);
            tried++;
            accepted += st == KPCA_OK;
            struct_written += !struct_ok;
            payload_not_crc += i >= 64 && st != KPCA_ERR_CRC_MISMATCH;
        }
        scratch[i] = orig;
    }
    printf("  %s: %lu single-byte changes over %lu bytes\n", m->name, tried, (unsigned long)len);
    CHECK(tried == (unsigned long)len * 255u);
    CHECK(accepted == 0);
    CHECK(payload_not_crc == 0);
    CHECK(struct_written == 0);
}

static void sweep_lengths(const struct c_test_model *m)
{
    size_t len = copy_blob(m), n;
    unsigned long wrong = 0;
    struct kpca_model model;
    int struct_ok;
    for (n = 0; n < len; n++) {
        kpca_status st = try_load(&model, scratch, n, &struct_ok);
        note(st);
        wrong += st != KPCA_ERR_TRUNCATED || !struct_ok;
    }
    CHECK(wrong == 0); /* every truncation is TRUNCATED */
    for (n = 1; n <= 8; n++) {
        memset(scratch + len, (int)n, n);
        EXPECT_LOAD(scratch, len + n, KPCA_ERR_LENGTH_MISMATCH, "extended blob");
    }
}

struct header_edit {
    int model;
    size_t at;
    int width; /* 2 or 4 bytes; 5 = f32 */
    uint32_t value;
    float fvalue;
    kpca_status want;
    const char *what;
};

#define NO_F 0.0f
static void test_corruption(void)
{
    /* Offsets: docs/MODEL_FORMAT.md. Sections of "tiny" (d=3, m=4, k=2,
     * standardised): mean @64, inv_std @76, points @88, norms @136, A @152,
     * b @184, c @192, eigenvalues @208, CRC @216. */
    const struct header_edit edits[] = {
        { C_TEST_MODEL_TINY, 4, 2, KPCA_FORMAT_VERSION + 1, NO_F, KPCA_ERR_UNSUPPORTED_VERSION, "version past the newest" },
        { C_TEST_MODEL_TINY, 4, 2, KPCA_OLDEST_FORMAT_VERSION, NO_F, KPCA_OK, "version 1 (no fit record) still loads" },
        { C_TEST_MODEL_TINY, 4, 2, 0, NO_F, KPCA_ERR_UNSUPPORTED_VERSION, "version 0" },
        { C_TEST_MODEL_TINY, 6, 2, 0xFFFE, NO_F, KPCA_ERR_BYTE_ORDER, "swapped byte-order mark" },
        { C_TEST_MODEL_TINY, 8, 2, 60, NO_F, KPCA_ERR_BAD_HEADER, "header length 60" },
        { C_TEST_MODEL_TINY, 12, 4, 3, NO_F, KPCA_ERR_BAD_HEADER, "unknown flag bit" },
        { C_TEST_MODEL_TINY, 12, 4, 0x80000001u, NO_F, KPCA_ERR_BAD_HEADER, "high flag bit" },
        { C_TEST_MODEL_TINY, 52, 4, 1, NO_F, KPCA_ERR_BAD_HEADER, "fit record: n without a method" },
        { C_TEST_MODEL_TINY, 56, 4, 1, NO_F, KPCA_ERR_BAD_HEADER, "fit record: a total variance without a method" },
        { C_TEST_MODEL_TINY, 60, 4, 0x100, NO_F, KPCA_ERR_BAD_HEADER, "fit record: unknown method" },
        { C_TEST_MODEL_TINY, 48, 4, 220 + 4, NO_F, KPCA_ERR_TRUNCATED, "total length past the end" },
        { C_TEST_MODEL_TINY, 48, 4, 220 - 4, NO_F, KPCA_ERR_LENGTH_MISMATCH, "total length short of the end" },
        { C_TEST_MODEL_TINY, 48, 4, 64, NO_F, KPCA_ERR_LENGTH_MISMATCH, "total length 64" },
        { C_TEST_MODEL_TINY, 16, 4, 0, NO_F, KPCA_ERR_ZERO_DIMENSION, "d = 0" },
        { C_TEST_MODEL_TINY, 20, 4, 0, NO_F, KPCA_ERR_ZERO_DIMENSION, "m = 0" },
        { C_TEST_MODEL_TINY, 24, 4, 0, NO_F, KPCA_ERR_ZERO_DIMENSION, "k = 0" },
        { C_TEST_MODEL_TINY, 16, 4, KPCA_MAX_DIM + 1, NO_F, KPCA_ERR_DIMENSION_TOO_LARGE, "d = max + 1" },
        { C_TEST_MODEL_TINY, 20, 4, KPCA_MAX_POINTS + 1, NO_F, KPCA_ERR_DIMENSION_TOO_LARGE, "m = max + 1" },
        { C_TEST_MODEL_TINY, 24, 4, KPCA_MAX_COMPONENTS + 1, NO_F, KPCA_ERR_DIMENSION_TOO_LARGE, "k = 17" },
        { C_TEST_MODEL_TINY, 16, 4, 0xFFFFFFFFu, NO_F, KPCA_ERR_DIMENSION_TOO_LARGE, "d = 2^32 - 1" },
        { C_TEST_MODEL_TINY, 20, 4, 5, NO_F, KPCA_ERR_LENGTH_MISMATCH, "m = 5 (disagrees with the length)" },
        { C_TEST_MODEL_TINY, 24, 4, 3, NO_F, KPCA_ERR_LENGTH_MISMATCH, "k = 3 (disagrees with the length)" },
        { C_TEST_MODEL_TINY, 12, 4, 0, NO_F, KPCA_ERR_LENGTH_MISMATCH, "standardisation flag cleared" },
        { C_TEST_MODEL_TINY, 10, 2, 6, NO_F, KPCA_ERR_UNKNOWN_KERNEL, "kernel id 6" },
        { C_TEST_MODEL_TINY, 10, 2, 0xFFFF, NO_F, KPCA_ERR_UNKNOWN_KERNEL, "kernel id 65535" },
        { C_TEST_MODEL_TINY, 28, 4, 0, NO_F, KPCA_ERR_BAD_KERNEL_PARAMETER, "poly degree 0" },
        { C_TEST_MODEL_TINY, 28, 4, 17, NO_F, KPCA_ERR_BAD_KERNEL_PARAMETER, "poly degree 17" },
        { C_TEST_MODEL_TINY, 32, 5, 0, 0.0f, KPCA_ERR_BAD_KERNEL_PARAMETER, "gamma 0" },
        { C_TEST_MODEL_TINY, 32, 5, 0, -1.0f, KPCA_ERR_BAD_KERNEL_PARAMETER, "gamma -1" },
        { C_TEST_MODEL_TINY, 32, 5, 0, NAN, KPCA_ERR_BAD_KERNEL_PARAMETER, "gamma NaN" },
        { C_TEST_MODEL_TINY, 32, 5, 0, INFINITY, KPCA_ERR_BAD_KERNEL_PARAMETER, "gamma inf" },
        { C_TEST_MODEL_TINY, 36, 5, 0, NAN, KPCA_ERR_BAD_KERNEL_PARAMETER, "coef0 NaN" },
        { C_TEST_MODEL_SIGMOID, 36, 5, 0, -INFINITY, KPCA_ERR_BAD_KERNEL_PARAMETER, "sigmoid coef0 -inf" },
        { C_TEST_MODEL_RBF, 32, 5, 0, -0.0f, KPCA_ERR_BAD_KERNEL_PARAMETER, "rbf gamma -0" },
        { C_TEST_MODEL_LAPLACIAN, 32, 5, 0, 1e-45f, KPCA_OK, "laplacian gamma denormal (> 0, accepted)" },
        { C_TEST_MODEL_LINEAR, 32, 5, 0, NAN, KPCA_OK, "linear gamma NaN (unused, ignored)" },
        { C_TEST_MODEL_COSINE, 28, 4, 99, NO_F, KPCA_OK, "cosine degree 99 (unused, ignored)" },
        { C_TEST_MODEL_TINY, 40, 5, 0, NAN, KPCA_ERR_NON_FINITE_MODEL, "threshold NaN" },
        { C_TEST_MODEL_TINY, 40, 5, 0, INFINITY, KPCA_ERR_NON_FINITE_MODEL, "threshold inf" },
        { C_TEST_MODEL_TINY, 44, 5, 0, -INFINITY, KPCA_ERR_NON_FINITE_MODEL, "s -inf" },
        { C_TEST_MODEL_TINY, 64, 5, 0, NAN, KPCA_ERR_NON_FINITE_MODEL, "mean NaN" },
        { C_TEST_MODEL_TINY, 100, 5, 0, INFINITY, KPCA_ERR_NON_FINITE_MODEL, "point inf" },
        { C_TEST_MODEL_TINY, 152, 5, 0, NAN, KPCA_ERR_NON_FINITE_MODEL, "A NaN" },
        { C_TEST_MODEL_TINY, 188, 5, 0, NAN, KPCA_ERR_NON_FINITE_MODEL, "b NaN" },
        { C_TEST_MODEL_TINY, 196, 5, 0, -INFINITY, KPCA_ERR_NON_FINITE_MODEL, "c -inf" },
        { C_TEST_MODEL_TINY, 212, 5, 0, NAN, KPCA_ERR_NON_FINITE_MODEL, "eigenvalue NaN" },
        { C_TEST_MODEL_TINY, 88, 5, 0, 3e38f, KPCA_ERR_NON_FINITE_MODEL, "point whose square overflows" },
        { C_TEST_MODEL_TINY, 40, 5, 0, -1.0f, KPCA_ERR_INCONSISTENT_MODEL, "threshold -1" },
        { C_TEST_MODEL_TINY, 76, 5, 0, 0.0f, KPCA_ERR_INCONSISTENT_MODEL, "inv_std 0" },
        { C_TEST_MODEL_TINY, 80, 5, 0, -0.5f, KPCA_ERR_INCONSISTENT_MODEL, "inv_std -0.5" },
        { C_TEST_MODEL_TINY, 136, 5, 0, 100.0f, KPCA_ERR_INCONSISTENT_MODEL, "stored norm wrong" },
        { C_TEST_MODEL_TINY, 140, 5, 0, -1.0f, KPCA_ERR_INCONSISTENT_MODEL, "stored norm negative" },
        { C_TEST_MODEL_TINY, 40, 5, 0, 0.0f, KPCA_OK, "threshold 0 (unset, accepted)" },
    };
    size_t i;
    context = "corruption";
    CHECK(tm(C_TEST_MODEL_TINY)->blob_len == 220);

    /* Magic and CRC, no CRC fix needed / wanted. */
    copy_blob(tm(C_TEST_MODEL_TINY));
    scratch[3] = 'B';
    EXPECT_LOAD(scratch, 220, KPCA_ERR_BAD_MAGIC, "KPCB");
    EXPECT_LOAD(scratch, 3, KPCA_ERR_TRUNCATED, "3 bytes of a bad magic");
    copy_blob(tm(C_TEST_MODEL_TINY));
    scratch[100] ^= 0x10;
    EXPECT_LOAD(scratch, 220, KPCA_ERR_CRC_MISMATCH, "payload bit flip");
    copy_blob(tm(C_TEST_MODEL_TINY));
    scratch[218] ^= 0x01;
    EXPECT_LOAD(scratch, 220, KPCA_ERR_CRC_MISMATCH, "CRC bit flip");
    copy_blob(tm(C_TEST_MODEL_TINY));
    fix_crc(scratch, 220);
    CHECK(memcmp(scratch, tm(C_TEST_MODEL_TINY)->words, 220) == 0); /* our CRC is the library's */

    /* Header and section edits with the CRC recomputed: each check's own code. */
    for (i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        const struct header_edit *e = &edits[i];
        size_t len = copy_blob(tm(e->model));
        context = e->what;
        if (e->width == 2) {
            put_u16(scratch, e->at, (uint16_t)e->value);
        } else if (e->width == 4) {
            put_u32(scratch, e->at, e->value);
        } else {
            put_f32(scratch, e->at, e->fvalue);
        }
        fix_crc(scratch, len);
        EXPECT_LOAD(scratch, len, e->want, e->what);
        /* The same edit without the CRC fix: refused before or at the CRC. */
        put_u32(scratch, len - 4, get_u32(scratch, len - 4) ^ 0x00010000u);
        {
            struct kpca_model model;
            int struct_ok;
            kpca_status st = try_load(&model, scratch, len, &struct_ok);
            note(st);
            CHECK(st != KPCA_OK && struct_ok);
        }
    }

    context = "single-byte sweep";
    sweep_single_bytes(tm(C_TEST_MODEL_TINY));
    sweep_single_bytes(tm(C_TEST_MODEL_NO_THRESHOLD));
    context = "length sweep";
    sweep_lengths(tm(C_TEST_MODEL_TINY));
    sweep_lengths(tm(C_TEST_MODEL_RBF_STD));
    context = "";
}

/* -------------------------------------------------------------- misaligned */

static void test_misaligned(void)
{
    const struct c_test_model *m = tm(C_TEST_MODEL_RBF_STD);
    struct kpca_model model = loaded(m);
    size_t d = m->dim, k = m->n_components, off;
    /* Byte storage aligned for anything; pointers are made 1..3 bytes past it. */
    static union {
        double align;
        unsigned char bytes[512];
    } buf;
    float out[16], score = SENTINEL;
    uint8_t flag = 7;
    context = "misaligned";
    fill(out, 16);
    for (off = 1; off < 4; off++) {
        unsigned char *p = buf.bytes + off;
        const float *mx = (const float *)(void *)p;
        float *mout = (float *)(void *)p;
        size_t *msize = (size_t *)(void *)p;
        uint32_t *mu32 = (uint32_t *)(void *)p;
        size_t len = m->blob_len;
        fill(out, 16);
        /* A valid blob 1..3 bytes past an aligned address. */
        memcpy(store + 1, m->words, len);
        EXPECT_LOAD((const uint8_t *)(store + 1) - off, len, KPCA_ERR_BAD_MAGIC, "shifted read");
        memmove((uint8_t *)store + 4 + off, store + 1, len);
        EXPECT_LOAD((const uint8_t *)store + 4 + off, len, KPCA_ERR_MISALIGNED, "misaligned blob");
        /* Float arrays. */
        memcpy(p, m->xs, d * sizeof(float));
        EXPECT(kpca_project(&model, mx, d, out, k), KPCA_ERR_MISALIGNED_BUFFER);
        EXPECT(kpca_anomaly_score(&model, mx, d, &score), KPCA_ERR_MISALIGNED_BUFFER);
        EXPECT(kpca_project_and_score(&model, mx, d, out, k, &score), KPCA_ERR_MISALIGNED_BUFFER);
        EXPECT(kpca_is_anomaly(&model, mx, d, &flag), KPCA_ERR_MISALIGNED_BUFFER);
        EXPECT(kpca_project_batch(&model, mx, d, out, k), KPCA_ERR_MISALIGNED_BUFFER);
        EXPECT(kpca_anomaly_score_batch(&model, mx, d, out, 1), KPCA_ERR_MISALIGNED_BUFFER);
        /* Misaligned even with length 0. */
        EXPECT(kpca_project(&model, mx, 0, out, k), KPCA_ERR_MISALIGNED_BUFFER);
        memset(buf.bytes, 0x5A, sizeof buf.bytes);
        EXPECT(kpca_project(&model, m->xs, d, mout, k), KPCA_ERR_MISALIGNED_BUFFER);
        EXPECT(kpca_anomaly_score(&model, m->xs, d, mout), KPCA_ERR_MISALIGNED_BUFFER);
        EXPECT(kpca_project_batch(&model, m->xs, d, mout, k), KPCA_ERR_MISALIGNED_BUFFER);
        EXPECT(kpca_anomaly_score_batch(&model, m->xs, d, mout, 1), KPCA_ERR_MISALIGNED_BUFFER);
        EXPECT(kpca_project_and_score(&model, m->xs, d, mout, k, &score), KPCA_ERR_MISALIGNED_BUFFER);
        EXPECT(kpca_model_dim(&model, msize), KPCA_ERR_MISALIGNED_BUFFER);
        EXPECT(kpca_model_n_components(&model, msize), KPCA_ERR_MISALIGNED_BUFFER);
        EXPECT(kpca_model_n_points(&model, msize), KPCA_ERR_MISALIGNED_BUFFER);
        EXPECT(kpca_model_threshold(&model, mout), KPCA_ERR_MISALIGNED_BUFFER);
        EXPECT(kpca_model_kernel(&model, mu32), KPCA_ERR_MISALIGNED_BUFFER);
        {
            size_t i;
            int clean = 1;
            for (i = 0; i < sizeof buf.bytes; i++) {
                clean &= buf.bytes[i] == 0x5A;
            }
            CHECK(clean); /* nothing written through a misaligned pointer */
        }
        CHECK(untouched(out, 16) && score == SENTINEL && flag == 7);
        /* A misaligned score with a valid out: the status is MISALIGNED_BUFFER and,
         * as for every failure, out must not be written (fixed in 19c1089). */
        fill(out, 16);
        EXPECT(kpca_project_and_score(&model, m->xs, d, out, k, mout), KPCA_ERR_MISALIGNED_BUFFER);
        CHECK(untouched(out, 16));
    }
    context = "";
}

/* -------------------------------------------------- unloaded and tampered */

static void all_calls(const struct kpca_model *model, kpca_status want, size_t d)
{
    float x[16] = { 0 }, out[64], score = SENTINEL, thr = SENTINEL;
    size_t v = 77;
    uint32_t kernel = 77;
    uint8_t flag = 7;
    fill(out, 64);
    EXPECT(kpca_project(model, x, d, out, 16), want);
    EXPECT(kpca_anomaly_score(model, x, d, &score), want);
    EXPECT(kpca_project_and_score(model, x, d, out, 16, &score), want);
    EXPECT(kpca_is_anomaly(model, x, d, &flag), want);
    EXPECT(kpca_project_batch(model, x, d, out, 16), want);
    EXPECT(kpca_anomaly_score_batch(model, x, d, out, 1), want);
    CHECK(untouched(out, 64) && score == SENTINEL && flag == 7);
    (void)thr;
    (void)v;
    (void)kernel;
}

static void getters_unloaded(const struct kpca_model *model)
{
    float thr = SENTINEL;
    size_t v = 77;
    uint32_t kernel = 77;
    EXPECT(kpca_model_dim(model, &v), KPCA_ERR_MODEL_NOT_LOADED);
    EXPECT(kpca_model_n_components(model, &v), KPCA_ERR_MODEL_NOT_LOADED);
    EXPECT(kpca_model_n_points(model, &v), KPCA_ERR_MODEL_NOT_LOADED);
    EXPECT(kpca_model_threshold(model, &thr), KPCA_ERR_MODEL_NOT_LOADED);
    EXPECT(kpca_model_kernel(model, &kernel), KPCA_ERR_MODEL_NOT_LOADED);
    CHECK(v == 77 && kernel == 77 && thr == SENTINEL);
}

static void test_unloaded_and_tampered(void)
{
    const struct c_test_model *m = tm(C_TEST_MODEL_RBF);
    struct kpca_model zero, failed, model = loaded(m), t;
    size_t d = m->dim;
    context = "unloaded";
    memset(&zero, 0, sizeof zero);
    all_calls(&zero, KPCA_ERR_MODEL_NOT_LOADED, d);
    getters_unloaded(&zero);
    /* A struct whose load failed stays unloaded. */
    memset(&failed, 0, sizeof failed);
    copy_blob(m);
    scratch[70] ^= 1;
    EXPECT(kpca_model_from_bytes(&failed, scratch, m->blob_len), KPCA_ERR_CRC_MISMATCH);
    all_calls(&failed, KPCA_ERR_MODEL_NOT_LOADED, d);
    /* A loaded struct with the marker cleared, or its sizes zeroed. */
    t = model;
    t.magic = 0;
    all_calls(&t, KPCA_ERR_MODEL_NOT_LOADED, d);
    getters_unloaded(&t);
    t = model;
    t.dim = 0;
    all_calls(&t, KPCA_ERR_MODEL_NOT_LOADED, d);
    t = model;
    t.n_components = KPCA_MAX_COMPONENTS + 1;
    all_calls(&t, KPCA_ERR_MODEL_NOT_LOADED, d);
    t = model;
    t.n_points = 0;
    all_calls(&t, KPCA_ERR_MODEL_NOT_LOADED, d);

    /* A tampered kernel id is re-checked before any read. (The section
     * pointers and kernel parameters of a loaded struct are the loader's and,
     * by design, not re-checked: a struct that was modified after loading is
     * outside the contract, so no test writes NULL or bad pointers into one.) */
    context = "tampered struct";
    t = model;
    t.kernel = 6;
    all_calls(&t, KPCA_ERR_UNKNOWN_KERNEL, d);
    t = model;
    t.kernel = 0x10002u;
    all_calls(&t, KPCA_ERR_UNKNOWN_KERNEL, d);
    /* A record of another precision (an integer model) or with a front end
     * this version does not know: refused by every f32 entry point. */
    t = model;
    t.precision = KPCA_PRECISION_Q15;
    all_calls(&t, KPCA_ERR_PRECISION_MISMATCH, d);
    t = model;
    t.front_end = 1;
    all_calls(&t, KPCA_ERR_UNKNOWN_FRONT_END, d);

    /* Threshold unset: is_anomaly refuses, the getter gives 0. */
    context = "threshold unset";
    {
        const struct c_test_model *n = tm(C_TEST_MODEL_NO_THRESHOLD);
        struct kpca_model nt = loaded(n);
        uint8_t flag = 7;
        float thr = SENTINEL;
        EXPECT(kpca_is_anomaly(&nt, n->xs, n->dim, &flag), KPCA_ERR_THRESHOLD_UNSET);
        CHECK(flag == 7);
        EXPECT(kpca_model_threshold(&nt, &thr), KPCA_OK);
        CHECK(thr == 0.0f);
        /* The threshold is checked before the input: also for NaN input. */
        {
            float x[3] = { NAN, 0.0f, 0.0f };
            EXPECT(kpca_is_anomaly(&nt, x, 3, &flag), KPCA_ERR_THRESHOLD_UNSET);
        }
        /* ...and for an input of the wrong length. */
        EXPECT(kpca_is_anomaly(&nt, n->xs, 2, &flag), KPCA_ERR_THRESHOLD_UNSET);
        CHECK(flag == 7);
    }
    context = "";
}

/* ------------------------------------------------------ optional sections */

/* Relative agreement with the host's f32 result (the same code: rounding only
 * from a different compiler's scheduling of the same operations). */
static int near(float got, float want)
{
    return fabsf(got - want) <= 1e-5f * (1.0f + fabsf(want));
}

/* kpca_reconstruct and kpca_predict: the host's results; every bad argument
 * its own status with the output untouched; models without the sections
 * KPCA_ERR_NO_PREIMAGE / KPCA_ERR_NO_REGRESSION; a damaged section table
 * KPCA_ERR_BAD_SECTION. */
static void test_sections(void)
{
    const struct c_test_model *m = tm(C_TEST_MODEL_HEADS);
    const struct c_test_model *plain = tm(C_TEST_MODEL_RBF_STD);
    struct kpca_model model = loaded(m), other = loaded(plain);
    size_t d = m->dim, t = m->n_targets, j, i, n_t = 99, len, at;
    float out[8], nan_x[8];
    int ok = 1;
    context = "sections";
    EXPECT(kpca_model_n_targets(&model, &n_t), KPCA_OK);
    CHECK(n_t == t && model.n_targets == t && model.n_preimage > 0);
    CHECK((model.flags & KPCA_FLAG_SECTIONS) != 0);
    for (j = 0; j < C_TEST_N_VECTORS; j++) {
        const float *x = m->xs + j * d;
        EXPECT(kpca_reconstruct(&model, x, d, out, d), KPCA_OK);
        for (i = 0; i < d; i++) {
            ok &= near(out[i], m->recons[j * d + i]);
        }
        EXPECT(kpca_predict(&model, x, d, out, t), KPCA_OK);
        for (i = 0; i < t; i++) {
            ok &= near(out[i], m->preds[j * t + i]);
        }
    }
    CHECK(ok);
    for (i = 0; i < d; i++) {
        nan_x[i] = m->xs[i];
    }
    nan_x[1] = NAN;
    fill(out, 8);
    EXPECT(kpca_reconstruct(NULL, m->xs, d, out, d), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_reconstruct(&model, NULL, d, out, d), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_reconstruct(&model, m->xs, d, NULL, d), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_reconstruct(&model, m->xs, d - 1, out, d), KPCA_ERR_INPUT_LENGTH);
    EXPECT(kpca_reconstruct(&model, m->xs, d, out, d - 1), KPCA_ERR_OUTPUT_LENGTH);
    EXPECT(kpca_reconstruct(&model, nan_x, d, out, d), KPCA_ERR_NON_FINITE_INPUT);
    EXPECT(kpca_reconstruct(&other, plain->xs, plain->dim, out, 8), KPCA_ERR_NO_PREIMAGE);
    EXPECT(kpca_predict(NULL, m->xs, d, out, t), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_predict(&model, NULL, d, out, t), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_predict(&model, m->xs, d, NULL, t), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_predict(&model, m->xs, d + 1, out, t), KPCA_ERR_INPUT_LENGTH);
    EXPECT(kpca_predict(&model, m->xs, d, out, t - 1), KPCA_ERR_OUTPUT_LENGTH);
    EXPECT(kpca_predict(&model, nan_x, d, out, t), KPCA_ERR_NON_FINITE_INPUT);
    EXPECT(kpca_predict(&other, plain->xs, plain->dim, out, 8), KPCA_ERR_NO_REGRESSION);
    EXPECT(kpca_model_n_targets(&other, &n_t), KPCA_OK);
    CHECK(n_t == 0);
    EXPECT(kpca_model_n_targets(&model, NULL), KPCA_ERR_NULL_POINTER);
    CHECK(untouched(out, 8));
    /* The section table starts after the core: find the pre-image tag (1)
     * followed by its count (then n x k scores, (n + 1) x d coefficients), change the tag to an unknown one, fix the CRC. */
    len = copy_blob(m);
    at = 0;
    for (i = 64; i + 8 <= len - 4; i += 4) {
        if (get_u32(scratch, i) == 1u && get_u32(scratch, i + 4) == (uint32_t)model.n_preimage &&
            i + 8 + 4 * ((size_t)model.n_preimage * (m->n_components + d) + d) + 8 + 4 * t * (m->n_components + 1) + 4 == len) {
            at = i;
        }
    }
    CHECK(at > 0);
    if (at > 0) {
        put_u32(scratch, at, 9u);
        fix_crc(scratch, len);
        EXPECT_LOAD(scratch, len, KPCA_ERR_BAD_SECTION, "unknown section tag");
        put_u32(scratch, at, 2u); /* regression before... regression: repeated tag */
        fix_crc(scratch, len);
        EXPECT_LOAD(scratch, len, KPCA_ERR_BAD_SECTION, "section tags out of order");
    }
    context = "";
}

/* ------------------------------------------------- learning on the device */

#define FIT_N 40
#define FIT_D 3
#define FIT_WS_WORDS 4096
static float fit_x[FIT_N * FIT_D];
static uint32_t fit_ws[FIT_WS_WORDS];
static uint32_t fit_model[1024];

/* Two noisy rings in 3-D (deterministic), far from the origin. */
static void make_fit_data(void)
{
    size_t i;
    for (i = 0; i < FIT_N; i++) {
        float t = 0.157f * (float)i;
        float r = (i % 2 == 0) ? 1.0f : 0.4f;
        fit_x[i * FIT_D + 0] = 100.0f + r * cosf(t);
        fit_x[i * FIT_D + 1] = -50.0f + r * sinf(t);
        fit_x[i * FIT_D + 2] = 0.05f * (float)(i % 7);
    }
}

static kpca_fit_params fit_params(uint32_t kernel, uint32_t k)
{
    kpca_fit_params p;
    p.kernel = kernel;
    p.degree = 2;
    p.gamma = 0.0f;
    p.coef0 = 1.0f;
    p.n_components = k;
    p.standardize = 1;
    p.false_alarm_rate = 0.1f;
    return p;
}

static kpca_status fit_with(const float *x, size_t x_len, const kpca_fit_params *p, size_t *len)
{
    return kpca_fit(x, x_len, FIT_D, p, fit_ws, sizeof fit_ws, (uint8_t *)fit_model,
                    sizeof fit_model, len);
}

/* Every kernel fits; the blob loads, its threshold flags at most the
 * requested share of the training vectors, and it projects them. */
static void test_fit_every_kernel(void)
{
    uint32_t kernel;
    for (kernel = 0; kernel <= 5; kernel++) {
        kpca_fit_params p = fit_params(kernel, 2);
        size_t ws = 0, mb = 0, len = 0, i, flagged = 0;
        struct kpca_model model;
        float y[2], thr = -1.0f;
        EXPECT(kpca_fit_sizes(FIT_N, FIT_D, &p, &ws, &mb), KPCA_OK);
        CHECK(ws > 0 && ws <= sizeof fit_ws && mb > 0 && mb <= sizeof fit_model);
        EXPECT(fit_with(fit_x, FIT_N * FIT_D, &p, &len), KPCA_OK);
        CHECK(len == mb);
        EXPECT(kpca_model_from_bytes(&model, (const uint8_t *)fit_model, len), KPCA_OK);
        EXPECT(kpca_model_threshold(&model, &thr), KPCA_OK);
        CHECK(thr > 0.0f);
        for (i = 0; i < FIT_N; i++) {
            uint8_t flag = 0;
            EXPECT(kpca_project(&model, fit_x + i * FIT_D, FIT_D, y, 2), KPCA_OK);
            EXPECT(kpca_is_anomaly(&model, fit_x + i * FIT_D, FIT_D, &flag), KPCA_OK);
            flagged += (size_t)flag;
        }
        /* The 0.9 quantile of 40 scores: between 1 and 4 lie above it. */
        CHECK(flagged >= 1 && flagged <= 4);
        /* gamma 0 is 1/d for the kernels that use it. */
        CHECK(kernel == 0 || kernel == 5 || model.gamma == 1.0f / (float)FIT_D);
    }
}

static void test_fit_statuses(void)
{
    kpca_fit_params p = fit_params(2, 2), bad;
    size_t ws = 0, mb = 0, len = 7;
    float x[FIT_N * FIT_D];
    EXPECT(kpca_fit_sizes(FIT_N, FIT_D, NULL, &ws, &mb), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_fit_sizes(FIT_N, FIT_D, &p, NULL, &mb), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_fit_sizes(FIT_N, FIT_D, &p, &ws, NULL), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_fit_sizes((size_t)-1, FIT_D, &p, &ws, &mb), KPCA_ERR_DIMENSION_TOO_LARGE);
    EXPECT(kpca_fit_sizes(1, FIT_D, &p, &ws, &mb), KPCA_ERR_TOO_FEW_ROWS);
    EXPECT(kpca_fit_sizes(FIT_N, 0, &p, &ws, &mb), KPCA_ERR_ZERO_DIMENSION);
    EXPECT(kpca_fit_sizes(FIT_N, FIT_D, &p, &ws, &mb), KPCA_OK);
    EXPECT(kpca_fit(NULL, FIT_N * FIT_D, FIT_D, &p, fit_ws, sizeof fit_ws, (uint8_t *)fit_model, sizeof fit_model, &len), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_fit(fit_x, FIT_N * FIT_D, FIT_D, NULL, fit_ws, sizeof fit_ws, (uint8_t *)fit_model, sizeof fit_model, &len), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_fit(fit_x, FIT_N * FIT_D, FIT_D, &p, NULL, sizeof fit_ws, (uint8_t *)fit_model, sizeof fit_model, &len), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_fit(fit_x, FIT_N * FIT_D, FIT_D, &p, fit_ws, sizeof fit_ws, NULL, sizeof fit_model, &len), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_fit(fit_x, FIT_N * FIT_D, FIT_D, &p, fit_ws, sizeof fit_ws, (uint8_t *)fit_model, sizeof fit_model, NULL), KPCA_ERR_NULL_POINTER);
    bad = p; bad.kernel = 6;
    EXPECT(fit_with(fit_x, FIT_N * FIT_D, &bad, &len), KPCA_ERR_UNKNOWN_KERNEL);
    bad = p; bad.kernel = 0x10002;
    EXPECT(fit_with(fit_x, FIT_N * FIT_D, &bad, &len), KPCA_ERR_UNKNOWN_KERNEL);
    bad = p; bad.gamma = -1.0f;
    EXPECT(fit_with(fit_x, FIT_N * FIT_D, &bad, &len), KPCA_ERR_BAD_KERNEL_PARAMETER);
    bad = p; bad.gamma = (float)NAN;
    EXPECT(fit_with(fit_x, FIT_N * FIT_D, &bad, &len), KPCA_ERR_BAD_KERNEL_PARAMETER);
    bad = fit_params(1, 2); bad.degree = 0;
    EXPECT(fit_with(fit_x, FIT_N * FIT_D, &bad, &len), KPCA_ERR_BAD_KERNEL_PARAMETER);
    bad = p; bad.n_components = 0;
    EXPECT(fit_with(fit_x, FIT_N * FIT_D, &bad, &len), KPCA_ERR_ZERO_DIMENSION);
    bad = p; bad.n_components = 17;
    EXPECT(fit_with(fit_x, FIT_N * FIT_D, &bad, &len), KPCA_ERR_DIMENSION_TOO_LARGE);
    bad = p; bad.false_alarm_rate = 0.0f;
    EXPECT(fit_with(fit_x, FIT_N * FIT_D, &bad, &len), KPCA_ERR_BAD_FALSE_ALARM_RATE);
    bad = p; bad.false_alarm_rate = 1.0f;
    EXPECT(fit_with(fit_x, FIT_N * FIT_D, &bad, &len), KPCA_ERR_BAD_FALSE_ALARM_RATE);
    bad = p; bad.false_alarm_rate = (float)NAN;
    EXPECT(fit_with(fit_x, FIT_N * FIT_D, &bad, &len), KPCA_ERR_BAD_FALSE_ALARM_RATE);
    EXPECT(fit_with(fit_x, FIT_N * FIT_D - 1, &p, &len), KPCA_ERR_BATCH_LENGTH);
    EXPECT(fit_with(fit_x, FIT_D, &p, &len), KPCA_ERR_TOO_FEW_ROWS);
    EXPECT(fit_with(fit_x, 0, &p, &len), KPCA_ERR_TOO_FEW_ROWS);
    bad = p; bad.n_components = 3;
    EXPECT(fit_with(fit_x, 3 * FIT_D, &bad, &len), KPCA_ERR_TOO_MANY_COMPONENTS);
    /* The linear kernel on 3-D data has 3 positive eigenvalues. */
    bad = fit_params(0, 4);
    EXPECT(fit_with(fit_x, FIT_N * FIT_D, &bad, &len), KPCA_ERR_TOO_MANY_COMPONENTS);
    EXPECT(kpca_fit(fit_x, FIT_N * FIT_D, FIT_D, &p, fit_ws, ws - 4, (uint8_t *)fit_model, sizeof fit_model, &len), KPCA_ERR_WORKSPACE_TOO_SMALL);
    EXPECT(kpca_fit(fit_x, FIT_N * FIT_D, FIT_D, &p, fit_ws, sizeof fit_ws, (uint8_t *)fit_model, mb - 1, &len), KPCA_ERR_BUFFER_TOO_SMALL);
    EXPECT(kpca_fit(fit_x, FIT_N * FIT_D, FIT_D, &p, (uint8_t *)fit_ws + 2, sizeof fit_ws - 4, (uint8_t *)fit_model, sizeof fit_model, &len), KPCA_ERR_MISALIGNED_BUFFER);
    /* The model buffer is the blob: its own status. */
    EXPECT(kpca_fit(fit_x, FIT_N * FIT_D, FIT_D, &p, fit_ws, sizeof fit_ws, (uint8_t *)fit_model + 1, sizeof fit_model - 4, &len), KPCA_ERR_MISALIGNED);
    EXPECT(kpca_fit((const float *)(const void *)((const uint8_t *)fit_x + 1), FIT_N * FIT_D - 1, FIT_D, &p, fit_ws, sizeof fit_ws, (uint8_t *)fit_model, sizeof fit_model, &len), KPCA_ERR_MISALIGNED_BUFFER);
    {
        /* Misaligned size outputs: refused before anything is written. */
        static union {
            size_t align;
            unsigned char bytes[4 * sizeof(size_t)];
        } sz;
        size_t *msz = (size_t *)(void *)(sz.bytes + 1), ws_len = 7, model_len = 7, i;
        int clean = 1;
        memset(sz.bytes, 0x5A, sizeof sz.bytes);
        EXPECT(kpca_fit(fit_x, FIT_N * FIT_D, FIT_D, &p, fit_ws, sizeof fit_ws, (uint8_t *)fit_model, sizeof fit_model, msz), KPCA_ERR_MISALIGNED_BUFFER);
        EXPECT(kpca_fit_sizes(FIT_N, FIT_D, &p, msz, &model_len), KPCA_ERR_MISALIGNED_BUFFER);
        EXPECT(kpca_fit_sizes(FIT_N, FIT_D, &p, &ws_len, msz), KPCA_ERR_MISALIGNED_BUFFER);
        for (i = 0; i < sizeof sz.bytes; i++) {
            clean &= sz.bytes[i] == 0x5A;
        }
        CHECK(clean && ws_len == 7 && model_len == 7);
    }
    memcpy(x, fit_x, sizeof x);
    x[17] = (float)NAN;
    EXPECT(fit_with(x, FIT_N * FIT_D, &p, &len), KPCA_ERR_NON_FINITE_INPUT);
    x[17] = (float)INFINITY;
    EXPECT(fit_with(x, FIT_N * FIT_D, &p, &len), KPCA_ERR_NON_FINITE_INPUT);
    memcpy(x, fit_x, sizeof x);
    {
        size_t i;
        for (i = 0; i < FIT_N; i++) {
            x[i * FIT_D + 2] = 4.0f;
        }
    }
    EXPECT(fit_with(x, FIT_N * FIT_D, &p, &len), KPCA_ERR_CONSTANT_COLUMN);
    /* (gamma x'z + 1)^16 of unstandardised values near 100 overflows float. */
    bad = fit_params(1, 2); bad.degree = 16; bad.gamma = 1.0f; bad.standardize = 0;
    EXPECT(fit_with(fit_x, FIT_N * FIT_D, &bad, &len), KPCA_ERR_NON_FINITE_RESULT);
    CHECK(len == 7); /* never written on failure */
}

static void test_fit(void)
{
    context = "kpca_fit";
    make_fit_data();
    test_fit_every_kernel();
    test_fit_statuses();
    context = "";
}

static void test_recalibrate(void)
{
    kpca_fit_params p = fit_params(2, 2);
    size_t len = 0;
    struct kpca_model model;
    float sc[FIT_N], t = -1.0f, t2 = -1.0f, thr = 0.0f, x[FIT_N * FIT_D];
    static uint32_t copy[1024], odd[1025];
    context = "kpca_recalibrate";
    EXPECT(fit_with(fit_x, FIT_N * FIT_D, &p, &len), KPCA_OK);
    EXPECT(kpca_recalibrate((uint8_t *)fit_model, len, fit_x, FIT_N * FIT_D, 0.25f, sc, FIT_N, &t), KPCA_OK);
    EXPECT(kpca_model_from_bytes(&model, (const uint8_t *)fit_model, len), KPCA_OK);
    EXPECT(kpca_model_threshold(&model, &thr), KPCA_OK);
    CHECK(t > 0.0f && thr == t);
    /* A lower false-alarm rate sets a higher threshold. */
    EXPECT(kpca_recalibrate((uint8_t *)fit_model, len, fit_x, FIT_N * FIT_D, 0.02f, sc, FIT_N, &t2), KPCA_OK);
    CHECK(t2 > t);
    memcpy(copy, fit_model, len);
    t = -1.0f;
    EXPECT(kpca_recalibrate((uint8_t *)fit_model, len, fit_x, FIT_N * FIT_D, 0.02f, sc, FIT_N, NULL), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_recalibrate(NULL, len, fit_x, FIT_N * FIT_D, 0.02f, sc, FIT_N, &t), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_recalibrate((uint8_t *)fit_model, len, NULL, FIT_N * FIT_D, 0.02f, sc, FIT_N, &t), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_recalibrate((uint8_t *)fit_model, len, fit_x, FIT_N * FIT_D, 0.02f, NULL, FIT_N, &t), KPCA_ERR_NULL_POINTER);
    EXPECT(kpca_recalibrate((uint8_t *)fit_model, len, fit_x, FIT_N * FIT_D, 1.0f, sc, FIT_N, &t), KPCA_ERR_BAD_FALSE_ALARM_RATE);
    EXPECT(kpca_recalibrate((uint8_t *)fit_model, len, fit_x, FIT_N * FIT_D, -0.5f, sc, FIT_N, &t), KPCA_ERR_BAD_FALSE_ALARM_RATE);
    EXPECT(kpca_recalibrate((uint8_t *)fit_model, len, fit_x, FIT_N * FIT_D - 2, 0.02f, sc, FIT_N, &t), KPCA_ERR_BATCH_LENGTH);
    EXPECT(kpca_recalibrate((uint8_t *)fit_model, len, fit_x, 0, 0.02f, sc, FIT_N, &t), KPCA_ERR_TOO_FEW_ROWS);
    EXPECT(kpca_recalibrate((uint8_t *)fit_model, len, fit_x, FIT_N * FIT_D, 0.02f, sc, FIT_N - 1, &t), KPCA_ERR_WORKSPACE_TOO_SMALL);
    memcpy(x, fit_x, sizeof x);
    x[5] = (float)NAN;
    EXPECT(kpca_recalibrate((uint8_t *)fit_model, len, x, FIT_N * FIT_D, 0.02f, sc, FIT_N, &t), KPCA_ERR_NON_FINITE_INPUT);
    EXPECT(kpca_recalibrate((uint8_t *)fit_model, len - 4, fit_x, FIT_N * FIT_D, 0.02f, sc, FIT_N, &t), KPCA_ERR_TRUNCATED);
    /* A valid blob at an odd address. */
    memcpy((uint8_t *)odd + 1, fit_model, len);
    EXPECT(kpca_recalibrate((uint8_t *)odd + 1, len, fit_x, FIT_N * FIT_D, 0.02f, sc, FIT_N, &t), KPCA_ERR_MISALIGNED);
    CHECK(t == -1.0f && memcmp(copy, fit_model, len) == 0);
    /* Misaligned vectors, scratch or threshold: the caller's arrays, refused
     * before the blob is touched (a misaligned threshold was found only after
     * the blob had been rewritten; the rate is not the blob's, so a rewrite
     * would show). */
    memcpy((uint8_t *)odd + 1, fit_x, sizeof fit_x);
    EXPECT(kpca_recalibrate((uint8_t *)fit_model, len, (const float *)(const void *)((const uint8_t *)odd + 1), FIT_N * FIT_D, 0.25f, sc, FIT_N, &t), KPCA_ERR_MISALIGNED_BUFFER);
    EXPECT(kpca_recalibrate((uint8_t *)fit_model, len, fit_x, FIT_N * FIT_D, 0.25f, (float *)(void *)((uint8_t *)odd + 1), FIT_N, &t), KPCA_ERR_MISALIGNED_BUFFER);
    EXPECT(kpca_recalibrate((uint8_t *)fit_model, len, fit_x, FIT_N * FIT_D, 0.25f, sc, FIT_N, (float *)(void *)((uint8_t *)odd + 1)), KPCA_ERR_MISALIGNED_BUFFER);
    CHECK(t == -1.0f && memcmp(copy, fit_model, len) == 0);
    ((uint8_t *)fit_model)[100] ^= 1;
    EXPECT(kpca_recalibrate((uint8_t *)fit_model, len, fit_x, FIT_N * FIT_D, 0.02f, sc, FIT_N, &t), KPCA_ERR_CRC_MISMATCH);
    context = "";
}

/* ------------------------------------------------------ status strings */

/* Codes the C tests cannot reach: the parts and owned-model checks (no C
 * entry point builds a model from slices or into fixed capacity) and the
 * fit's eigensolver failure, a safeguard that no input is known to reach
 * (the solver works on the centred kernel matrix scaled to magnitude 1). */
static const kpca_status NOT_VIA_C_API[] = {
    KPCA_ERR_PARTS_LENGTH,   /* ModelRef::from_parts, OwnedModel::from_model_ref */
    KPCA_ERR_CAPACITY,       /* OwnedModel */
    KPCA_ERR_NO_CONVERGENCE, /* kpca_fit: QL steps exhausted */
};

static void test_status_strings(void)
{
    static const kpca_status unknown[] = { -1, N_CODES + 1, N_CODES + 2, 100, INT_MIN, INT_MAX };
    kpca_status s, t;
    size_t i;
    int all_distinct = 1;
    context = "kpca_status_str";
    for (s = 0; s <= N_CODES; s++) {
        const char *text = kpca_status_str(s);
        CHECK(text != NULL && text[0] != '\0');
        if (text == NULL || strcmp(text, c_test_status_text[s]) != 0) {
            n_failed++;
            printf("FAIL kpca_status_str(%d) = \"%s\", expected \"%s\"\n", (int)s, text ? text : "(null)",
                   c_test_status_text[s]);
        } else {
            n_passed++;
        }
        for (t = 0; t < s; t++) {
            all_distinct &= strcmp(kpca_status_str(s), kpca_status_str(t)) != 0;
        }
    }
    CHECK(all_distinct);
    for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *text = kpca_status_str(unknown[i]);
        CHECK(text != NULL && strcmp(text, "unknown status") == 0);
    }
    CHECK(kpca_version() == (uint32_t)KPCA_VERSION);
    context = "";
}

static void test_every_status_produced(void)
{
    static const struct {
        kpca_status code;
        const char *name;
    } codes[] = {
        { KPCA_ERR_NULL_POINTER, "KPCA_ERR_NULL_POINTER" },
        { KPCA_ERR_INPUT_LENGTH, "KPCA_ERR_INPUT_LENGTH" },
        { KPCA_ERR_OUTPUT_LENGTH, "KPCA_ERR_OUTPUT_LENGTH" },
        { KPCA_ERR_NON_FINITE_INPUT, "KPCA_ERR_NON_FINITE_INPUT" },
        { KPCA_ERR_TRUNCATED, "KPCA_ERR_TRUNCATED" },
        { KPCA_ERR_BAD_MAGIC, "KPCA_ERR_BAD_MAGIC" },
        { KPCA_ERR_UNSUPPORTED_VERSION, "KPCA_ERR_UNSUPPORTED_VERSION" },
        { KPCA_ERR_BYTE_ORDER, "KPCA_ERR_BYTE_ORDER" },
        { KPCA_ERR_CRC_MISMATCH, "KPCA_ERR_CRC_MISMATCH" },
        { KPCA_ERR_LENGTH_MISMATCH, "KPCA_ERR_LENGTH_MISMATCH" },
        { KPCA_ERR_ZERO_DIMENSION, "KPCA_ERR_ZERO_DIMENSION" },
        { KPCA_ERR_DIMENSION_TOO_LARGE, "KPCA_ERR_DIMENSION_TOO_LARGE" },
        { KPCA_ERR_UNKNOWN_KERNEL, "KPCA_ERR_UNKNOWN_KERNEL" },
        { KPCA_ERR_BAD_KERNEL_PARAMETER, "KPCA_ERR_BAD_KERNEL_PARAMETER" },
        { KPCA_ERR_NON_FINITE_MODEL, "KPCA_ERR_NON_FINITE_MODEL" },
        { KPCA_ERR_MISALIGNED, "KPCA_ERR_MISALIGNED" },
        { KPCA_ERR_BAD_HEADER, "KPCA_ERR_BAD_HEADER" },
        { KPCA_ERR_MODEL_NOT_LOADED, "KPCA_ERR_MODEL_NOT_LOADED" },
        { KPCA_ERR_THRESHOLD_UNSET, "KPCA_ERR_THRESHOLD_UNSET" },
        { KPCA_ERR_INCONSISTENT_MODEL, "KPCA_ERR_INCONSISTENT_MODEL" },
        { KPCA_ERR_BUFFER_TOO_SMALL, "KPCA_ERR_BUFFER_TOO_SMALL" },
        { KPCA_ERR_PARTS_LENGTH, "KPCA_ERR_PARTS_LENGTH" },
        { KPCA_ERR_CAPACITY, "KPCA_ERR_CAPACITY" },
        { KPCA_ERR_BATCH_LENGTH, "KPCA_ERR_BATCH_LENGTH" },
        { KPCA_ERR_NON_FINITE_RESULT, "KPCA_ERR_NON_FINITE_RESULT" },
        { KPCA_ERR_KERNEL_MISMATCH, "KPCA_ERR_KERNEL_MISMATCH" },
        { KPCA_ERR_BAD_SECTION, "KPCA_ERR_BAD_SECTION" },
        { KPCA_ERR_NO_PREIMAGE, "KPCA_ERR_NO_PREIMAGE" },
        { KPCA_ERR_NO_REGRESSION, "KPCA_ERR_NO_REGRESSION" },
        { KPCA_ERR_TOO_FEW_ROWS, "KPCA_ERR_TOO_FEW_ROWS" },
        { KPCA_ERR_TOO_MANY_COMPONENTS, "KPCA_ERR_TOO_MANY_COMPONENTS" },
        { KPCA_ERR_WORKSPACE_TOO_SMALL, "KPCA_ERR_WORKSPACE_TOO_SMALL" },
        { KPCA_ERR_CONSTANT_COLUMN, "KPCA_ERR_CONSTANT_COLUMN" },
        { KPCA_ERR_NO_CONVERGENCE, "KPCA_ERR_NO_CONVERGENCE" },
        { KPCA_ERR_BAD_FALSE_ALARM_RATE, "KPCA_ERR_BAD_FALSE_ALARM_RATE" },
        { KPCA_ERR_PRECISION_MISMATCH, "KPCA_ERR_PRECISION_MISMATCH" },
        { KPCA_ERR_UNKNOWN_FRONT_END, "KPCA_ERR_UNKNOWN_FRONT_END" },
        { KPCA_ERR_MISALIGNED_BUFFER, "KPCA_ERR_MISALIGNED_BUFFER" },
    };
    size_t i, j;
    context = "every status";
    CHECK(sizeof codes / sizeof codes[0] == N_CODES);
    printf("  status coverage (calls returning each code):\n");
    for (i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        kpca_status c = codes[i].code;
        int not_via_c = 0;
        for (j = 0; j < sizeof NOT_VIA_C_API / sizeof NOT_VIA_C_API[0]; j++) {
            not_via_c |= NOT_VIA_C_API[j] == c;
        }
        CHECK(c == (kpca_status)(i + 1));
        printf("    %2d %-30s %8lu%s\n", (int)c, codes[i].name, seen[c], not_via_c ? "  (not reached from C)" : "");
        if (not_via_c) {
            check_at(seen[c] == 0, codes[i].name, __LINE__);
        } else {
            check_at(seen[c] > 0, codes[i].name, __LINE__);
        }
    }
    context = "";
}

int main(void)
{
    printf("kpca C status tests (library version %u)\n", (unsigned)kpca_version());
    test_valid_models();
    test_null_pointers();
    test_lengths();
    test_non_finite();
    test_corruption();
    test_misaligned();
    test_unloaded_and_tampered();
    test_sections();
    test_fit();
    test_recalibrate();
    test_status_strings();
    test_every_status_produced();
    printf("%u passed, %u failed\n", n_passed, n_failed);
    return n_failed == 0 ? 0 : 1;
}
