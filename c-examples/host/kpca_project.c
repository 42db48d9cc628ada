/*
 * kpca_project: load a model blob from a file, project the vectors of a CSV read
 * from stdin, print one line per vector: the k coordinates, then the anomaly score.
 *
 *   kpca_project model.kpca < vectors.csv
 *
 * The run-time blob route, on purpose: the model is a file read at run time
 * (as a blob received over the air or from a file system would be), so it is
 * checked in full and loaded in place with kpca_model_from_bytes. A firmware
 * whose model is known at build time uses the generated model instead (`kpca
 * export --format c`: a ready `const kpca_model NAME_model`, no loader
 * linked; c-examples/firmware/kpca_fw.c).
 *
 * CSV: comma- or whitespace-separated numbers, one vector per line; empty lines
 * and lines starting with '#' are skipped, and so is a first line that is not
 * numeric (a header). Output numbers are printed with 9 significant digits,
 * enough to round-trip a float. Exit status: 0 on success, 1 on bad input or a
 * library error (reported on stderr with its status string), 2 on bad usage.
 *
 * Built with -std=c99 -Wall -Wextra -Wpedantic -Werror -Wdouble-promotion
 * -Wfloat-conversion against libkpca.a.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpca.h"

#define MAX_LINE 65536

/* Reads a whole file into a malloc'd buffer (malloc's alignment suits the blob). */
static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t cap = 0, used = 0;
    if (!f) {
        return NULL;
    }
    for (;;) {
        size_t got;
        if (used == cap) {
            size_t next = cap ? cap * 2 : 4096;
            unsigned char *grown = (unsigned char *)realloc(buf, next);
            if (!grown) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = grown;
            cap = next;
        }
        got = fread(buf + used, 1, cap - used, f);
        used += got;
        if (got == 0) {
            break;
        }
    }
    fclose(f);
    *len = used;
    return buf;
}

/* Parses up to `cap` numbers from `line`; returns how many, or -1 on a non-number. */
static long parse_row(char *line, float *row, size_t cap) {
    size_t n = 0;
    char *p = line;
    for (;;) {
        char *end;
        float v;
        while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\r' || *p == '\n') {
            p++;
        }
        if (*p == '\0') {
            return (long)n;
        }
        errno = 0;
        v = strtof(p, &end);
        if (end == p || errno == ERANGE) {
            return -1;
        }
        if (n < cap) {
            row[n] = v;
        }
        n++;
        p = end;
    }
}

int main(int argc, char **argv) {
    static char line[MAX_LINE];
    static float row[KPCA_MAX_DIM + 1];
    float coords[KPCA_MAX_COMPONENTS];
    kpca_model model;
    unsigned char *blob;
    size_t blob_len = 0, dim = 0, k = 0, i;
    long line_no = 0;
    int seen_row = 0;
    kpca_status st;

    if (argc != 2) {
        fprintf(stderr, "usage: %s MODEL.kpca < vectors.csv\n", argv[0]);
        return 2;
    }
    blob = read_file(argv[1], &blob_len);
    if (!blob) {
        fprintf(stderr, "%s: cannot read model file\n", argv[1]);
        return 1;
    }
    st = kpca_model_from_bytes(&model, blob, blob_len);
    if (st != KPCA_OK) {
        fprintf(stderr, "%s: %s (status %d)\n", argv[1], kpca_status_str(st), (int)st);
        free(blob);
        return 1;
    }
    if (kpca_model_dim(&model, &dim) != KPCA_OK || kpca_model_n_components(&model, &k) != KPCA_OK) {
        free(blob);
        return 1;
    }
    while (fgets(line, sizeof line, stdin)) {
        long n;
        float score;
        line_no++;
        if (line[0] == '#') {
            continue;
        }
        n = parse_row(line, row, dim + 1);
        if (n == 0) {
            continue;
        }
        if (n > 0) {
            seen_row = 1;
        } else {
            if (!seen_row) {
                seen_row = 1;
                continue; /* header */
            }
            fprintf(stderr, "stdin:%ld: not a number\n", line_no);
            free(blob);
            return 1;
        }
        if ((size_t)n > dim + 1) {
            n = (long)dim + 1; /* only dim + 1 values were kept: still the wrong length */
        }
        st = kpca_project_and_score(&model, row, (size_t)n, coords, KPCA_MAX_COMPONENTS, &score);
        if (st != KPCA_OK) {
            fprintf(stderr, "stdin:%ld: %s (status %d)\n", line_no, kpca_status_str(st), (int)st);
            free(blob);
            return 1;
        }
        for (i = 0; i < k; i++) {
            printf("%.9g,", (double)coords[i]);
        }
        printf("%.9g\n", (double)score);
    }
    free(blob);
    return 0;
}
