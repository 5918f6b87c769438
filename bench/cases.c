/* The bench's filter cases: which filters at which radii, and their filters. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {"gauss", "rand2d", "sep", "box", "disc"};

static const bench_case full_cases[] = {
    {GAUSS, 1},  {GAUSS, 3},  {GAUSS, 7}, {GAUSS, 15}, {RAND2D, 1}, {RAND2D, 2}, {RAND2D, 3},
    {RAND2D, 7}, {RAND2D, 15}, {RAND2D, 31}, {SEP, 1},    {SEP, 3},   {SEP, 7},  {SEP, 15},
    {BOX, 1},    {BOX, 7},     {BOX, 31},    {DISC, 7},   {DISC, 15},
};
static const bench_case quick_cases[] = {
    {GAUSS, 3}, {GAUSS, 15}, {RAND2D, 2}, {SEP, 7}, {BOX, 1}, {BOX, 31},
};

const bench_case *bench_cases(int quick, const char *only, int *count)
{
    static bench_case kept[sizeof full_cases / sizeof full_cases[0]];
    const bench_case *all = quick ? quick_cases : full_cases;
    int n = quick ? (int)(sizeof quick_cases / sizeof quick_cases[0])
                  : (int)(sizeof full_cases / sizeof full_cases[0]);
    *count = 0;
    for (int i = 0; i < n; i++)
        if (!only || strcmp(only, kind_names[all[i].k]) == 0)
            kept[(*count)++] = all[i];
    return kept;
}

/* The Gaussian's sigma for a radius: the radius is 3 sigma. */
#define GAUSS_SIGMA_PER_RADIUS (1.0 / 3.0)

void case_free(case_data *cd)
{
    oclconv_filter_destroy(cd->filter);
    free(cd->k2d);
    free(cd->row);
    free(cd->col);
    memset(cd, 0, sizeof *cd);
}

int case_make(const bench_case *c, case_data *cd)
{
    memset(cd, 0, sizeof *cd);
    cd->c = *c;
    snprintf(cd->label, sizeof cd->label, "%s r%d", kind_names[c->k], c->r);
    int n = 2 * c->r + 1;
    oclconv_status s = OCLCONV_E_INVALID_ARG;
    rng_seed(0xC0FFEEu + 1000u * (unsigned)c->k + (unsigned)c->r);
    switch (c->k) {
    case GAUSS:
        cd->sigma = c->r * GAUSS_SIGMA_PER_RADIUS;
        s = oclconv_filter_gaussian(cd->sigma, 0, c->r, c->r, &cd->filter);
        cd->macs = 2.0 * n;
        break;
    case RAND2D: {
        /* Mixed signs, summing to 1 as sharpening-like filters do. */
        cd->k2d = malloc((size_t)n * (size_t)n * sizeof *cd->k2d);
        if (!cd->k2d)
            return -1;
        double sum = 0;
        for (int i = 0; i < n * n; i++)
            sum += cd->k2d[i] = (float)rng_uniform(-0.25, 1.0);
        for (int i = 0; i < n * n; i++)
            cd->k2d[i] = (float)(cd->k2d[i] / sum);
        s = oclconv_filter_create(n, n, cd->k2d, &cd->filter);
        cd->macs = (double)n * n;
        break;
    }
    case SEP: {
        cd->row = malloc((size_t)n * sizeof *cd->row);
        cd->col = malloc((size_t)n * sizeof *cd->col);
        if (!cd->row || !cd->col)
            return -1;
        double sr = 0, sc = 0;
        for (int i = 0; i < n; i++) {
            sr += cd->row[i] = (float)rng_uniform(0.05, 1.0);
            sc += cd->col[i] = (float)rng_uniform(0.05, 1.0);
        }
        for (int i = 0; i < n; i++) {
            cd->row[i] = (float)(cd->row[i] / sr);
            cd->col[i] = (float)(cd->col[i] / sc);
        }
        s = oclconv_filter_separable(n, cd->row, n, cd->col, &cd->filter);
        cd->macs = 2.0 * n;
        break;
    }
    case DISC: {
        /* Equal taps inside the circle of radius r + 0.5: a bokeh. */
        cd->k2d = calloc((size_t)n * (size_t)n, sizeof *cd->k2d);
        if (!cd->k2d)
            return -1;
        int taps = 0;
        for (int j = -c->r; j <= c->r; j++)
            for (int i = -c->r; i <= c->r; i++)
                if (i * i + j * j <= c->r * (c->r + 1)) {
                    cd->k2d[(j + c->r) * n + i + c->r] = 1;
                    taps++;
                }
        for (int k = 0; k < n * n; k++)
            cd->k2d[k] /= (float)taps;
        s = oclconv_filter_create(n, n, cd->k2d, &cd->filter);
        cd->macs = 2.0 * n; /* the runs: two loads and adds a row of taps */
        break;
    }
    case BOX:
        s = oclconv_filter_box(c->r, c->r, &cd->filter);
        cd->macs = 4; /* running sums: an add and a subtract in each direction */
        break;
    }
    if (s != OCLCONV_OK) {
        fprintf(stderr, "bench: making the %s filter failed: %s (%s)\n", cd->label,
                oclconv_strerror(s), oclconv_errmsg(NULL));
        return -1;
    }
    return 0;
}
