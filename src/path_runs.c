/*
 * The runs path (cl/runs.cl): a filter of few distinct weights as runs of
 * equal taps along its rows, each run's sum the difference of two prefix
 * sums of a source row: exact in integers for 8- and 16-bit images; in
 * double for float images, where a sum too small for the prefix sums'
 * bound is made again directly.
 */
#include "internal.h"
#include "path_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The last tap of the run of equal non-zero taps that starts at tap i of
 * row j, or -1 where none starts there. */
static int run_end(const oclconv_filter *f, int j, int i)
{
    const double *row = f->weights + (size_t)j * (size_t)f->width;
    if (row[i] == 0 || (i > 0 && row[i - 1] == row[i]))
        return -1;
    int end = i;
    while (end + 1 < f->width && row[end + 1] == row[i])
        end++;
    return end;
}

int oclconv__count_runs(const oclconv_filter *f)
{
    int runs = 0;
    for (int j = 0; j < f->height; j++)
        for (int i = 0; i < f->width; i++)
            runs += run_end(f, j, i) >= 0;
    return runs;
}

size_t oclconv__runs_row_bytes(const oclconv__job *job, int width)
{
    size_t values = ((size_t)width + (size_t)job->filter->width) * (size_t)job->src->channels;
    /* Float images: the sums in double, the row's M and its counts of
     * values that are not 0 (cl/runs.cl). */
    return job->src->type == OCLCONV_F32 ? (values + 1) * sizeof(double) + values * sizeof(cl_uint)
                                         : values * sizeof(cl_uint);
}

/* Float images: a sum is kept where its magnitude is at least this many
 * times its bound in units of 2^-53 (cl/runs.cl), so that the bound is at
 * most 1 / (1 + 2 10^5) of the sum, whose terms are at least as large:
 * half the contract's 1e-5 of them, with a margin for the bound's own
 * roundings. */
#define FLOAT_REACH (0x1p-53 * 1.01 * (1 + 2e5))

/* CPUs: two loads and two additions a run against a multiply-add a tap,
 * and the prefix sums' pass (PoCL, 4K: a 15x15 disc, 177 taps in 15 runs,
 * 3.2x the direct sum on u8 gray; f32 31x31 3.0x the FFT).  GPUs, whose
 * direct sum takes its taps by value and reads through L1, from 20 taps a
 * run (NVIDIA H200, 4K and 8K: the 15x15 disc 0.2-0.6x; 31x31, 24 taps a
 * run, u8 gray 0.84x and 1.14x, RGBA8 1.31x and 2.06x), and not for float
 * images, whose prefix sums are doubles (H100, kernel time, f32 31x31 disc:
 * 0.90x the FFT at 4K, 0.86x at 8K). */
int oclconv__runs_pay(const oclconv_filter *f, int cpu_shapes, int float_src)
{
    if (!cpu_shapes && float_src)
        return 0;
    return (cpu_shapes ? 4 * (long)f->runs + 8 : 20 * (long)f->runs) <= (long)f->nonzero;
}

/* The prefix pass's rows a work-group, fixed: left to the runtime, the
 * group would follow the image's height, and PoCL compiles the kernel
 * anew for each group size it meets.  GPUs' integer prefix sums of images
 * under SCANNED_BELOW rows: a row's channel a group of PREFIX_GROUP
 * (cl/runs.cl runs_prefix_rows), where a row a work-item leaves most of
 * the GPU idle (NVIDIA H100, 31x31 disc, the runs' kernels, MP/s: 4K u8
 * gray 14 100 -> 19 400-19 600, RGBA8 3 130 -> 3 830; at 8K, 4320 rows,
 * the groups ran 0.94x and 0.90x a row a work-item). */
#define PREFIX_ROWS 32
#define PREFIX_GROUP 128
#define SCANNED_BELOW 4096

/* CPUs, filters of more than 17 rows: the sums' groups 8 x 16 work-items,
 * whose rows' windows share their prefix rows while a thread runs the
 * group, not the planner's row of 16, whose window of a 1 KB slice of each
 * of 2 ry + 1 prefix rows outgrows the L1 cache (PoCL, 2-core EPYC, 4K
 * discs, kernel time, best of 5 alternating: u8 gray r11 1.18x, r15 1.35x,
 * r31 1.11x, 2 channels r15 1.19x, RGBA8 r15 1.45x; r7 0.94x and RGBA8 r7
 * 0.97x keep the row). */
void oclconv__plan_runs(oclconv__job *job)
{
    if (job->cpu_shapes && job->filter->height / 2 >= 9) {
        job->local[0] = 8;
        job->local[1] = 16;
    }
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int compare_runs(const void *a, const void *b)
{
    const cl_int *x = a, *y = b;
    return (x[3] > y[3]) - (x[3] < y[3]);
}

/* The kernel's table: the levels' weights (doubles, an even count of them),
 * then a cl_int4 {dy, first tap, last tap, level} a run, sorted by level.
 * A filter of zeros gets one run of weight 0, so that every output has
 * one.  *levels and *runs say how many; NULL when out of memory. */
static void *runs_table(const oclconv_filter *f, int *levels, int *runs, size_t *bytes)
{
    int count = f->runs, rx = f->width / 2, ry = f->height / 2;
    double *values = malloc(((size_t)count + 1) * sizeof *values);
    cl_int *table = calloc((size_t)count + 1, 4 * sizeof *table);
    void *blob = NULL;
    if (!values || !table)
        goto out;
    /* Every run's weight, then the distinct ones (at least one). */
    size_t l = 0;
    for (int j = 0; j < f->height; j++)
        for (int i = 0; i < f->width; i++)
            if (run_end(f, j, i) >= 0)
                values[l++] = f->weights[(size_t)j * (size_t)f->width + (size_t)i];
    qsort(values, l, sizeof *values, compare_doubles);
    size_t distinct = 0;
    for (size_t k = 0; k < l; k++)
        if (k == 0 || values[k] != values[distinct - 1])
            values[distinct++] = values[k];
    if (distinct == 0)
        values[distinct++] = 0;
    cl_int *run = table;
    for (int j = 0; j < f->height; j++)
        for (int i = 0; i < f->width; i++) {
            int end = run_end(f, j, i);
            if (end < 0)
                continue;
            double w = f->weights[(size_t)j * (size_t)f->width + (size_t)i];
            double *at = bsearch(&w, values, distinct, sizeof *values, compare_doubles);
            run[0] = j - ry;
            run[1] = i - rx;
            run[2] = end - rx;
            run[3] = (cl_int)(at - values);
            run += 4;
        }
    count += count == 0; /* the zero run calloc left */
    qsort(table, (size_t)count, 4 * sizeof *table, compare_runs);
    size_t head = (distinct + 1) / 2 * 2 * sizeof(double);
    *bytes = head + (size_t)count * 4 * sizeof *table;
    if ((blob = calloc(1, *bytes)) != NULL) {
        memcpy(blob, values, distinct * sizeof *values);
        memcpy((char *)blob + head, table, (size_t)count * 4 * sizeof *table);
        *levels = (int)((distinct + 1) / 2 * 2);
        *runs = count;
    }
out:
    free(values);
    free(table);
    return blob;
}

oclconv_status oclconv__run_runs(oclconv_context *ctx, const oclconv__job *job,
                                 const oclconv__io *io)
{
    const oclconv_filter *f = job->filter;
    cl_int width = job->src->width, height = job->src->height, rx = f->width / 2,
           ry = f->height / 2, levels = 0, runs = 0;
    size_t cn = (size_t)job->src->channels, bytes = 0;
    char options[512];
    oclconv__common_options(ctx, job, options, sizeof options);
    size_t used = strlen(options);
    snprintf(options + used, sizeof options - used, " -DPREFIX_GROUP=%d", PREFIX_GROUP);
    int rows_scanned = !job->cpu_shapes && job->src->type != OCLCONV_F32 &&
                       height < SCANNED_BELOW && ctx->facts.max_work_group >= PREFIX_GROUP &&
                       ctx->facts.max_work_item[0] >= PREFIX_GROUP;
    cl_kernel prefix, sum;
    cl_mem sums = NULL, table = NULL;
    oclconv_status s = oclconv__get_kernel(ctx, "runs",
                                           rows_scanned ? "runs_prefix_rows" : "runs_prefix",
                                           options, &prefix);
    if (s == OCLCONV_OK)
        s = oclconv__get_kernel(ctx, "runs", "runs_sum", options, &sum);
    if (s == OCLCONV_OK)
        s = oclconv__scratch(ctx, 2, oclconv__runs_row_bytes(job, width) * (size_t)height,
                             &sums);
    void *blob = s == OCLCONV_OK ? runs_table(f, &levels, &runs, &bytes) : NULL;
    if (s == OCLCONV_OK && !blob)
        s = oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for the filter's runs");
    if (s == OCLCONV_OK)
        s = oclconv__upload_bytes(ctx, blob, bytes, &table);
    else
        free(blob);
    double bv = job->opt.border_value, scale = job->opt.scale, delta = job->opt.delta,
           wsum = f->sum, reach = FLOAT_REACH;
    /* Float images: the filter's taps for the sums made again directly
     * (doubles: the path's sums are, oclconv__precision()). */
    cl_mem taps = table;
    if (s == OCLCONV_OK && job->src->type == OCLCONV_F32)
        s = oclconv__upload_weights(ctx, job, f->weights, (size_t)f->width * (size_t)f->height,
                                    &taps);
    if (s == OCLCONV_OK)
        s = oclconv__args(ctx, prefix, 0, 5, sizeof io->in, &io->in, sizeof sums, &sums,
                          sizeof width, &width, sizeof height, &height, sizeof rx, &rx);
    if (s == OCLCONV_OK)
        s = oclconv__args(ctx, sum, 0, 16, sizeof sums, &sums, sizeof io->out, &io->out,
                          sizeof width, &width, sizeof height, &height, sizeof rx, &rx,
                          sizeof ry, &ry, sizeof table, &table, sizeof levels, &levels,
                          sizeof runs, &runs, sizeof bv, &bv, sizeof scale, &scale,
                          sizeof delta, &delta, sizeof wsum, &wsum, sizeof io->in, &io->in,
                          sizeof taps, &taps, sizeof reach, &reach);
    if (s == OCLCONV_OK)
        s = rows_scanned ? oclconv__run_2d_local(ctx, job, prefix,
                                                 (size_t)height * cn * PREFIX_GROUP, 1,
                                                 PREFIX_GROUP, 1)
                         : oclconv__run_2d_local(ctx, job, prefix, (size_t)height, 1,
                                                 PREFIX_ROWS, 1);
    if (s == OCLCONV_OK)
        s = oclconv__run_2d(ctx, job, sum, ((size_t)width * cn + (size_t)job->vec - 1) /
                                               (size_t)job->vec,
                            (size_t)height);
    if (taps != table)
        clReleaseMemObject(taps);
    if (table)
        clReleaseMemObject(table);
    return s;
}
