/* The separable path (cl/separable.cl, then separable_cpu.cl or separable_gpu.cl for a fused
 * shape): a row pass, then a column pass, fused or through scratch. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exact, rounded once: taps of ±3e38 around a 1 sum to 1. */
static double sum_of(const float *taps, int n)
{
    oclconv__sum s = {{0}, 0};
    for (int i = 0; i < n; i++)
        oclconv__sum_add(&s, taps[i]);
    return oclconv__sum_value(&s);
}

/* NORMALIZE: a pass's rescales at the positions whose taps pass the
 * image's edge, all its n taps' sum over the in-image ones', in double and
 * rounded once (cl/separable.cl's edge_rescale()): where the extent has
 * more than 2 r positions, the r at its start, then the r at its end from
 * the last; else every position.  0 where the in-image taps sum to 0.  The
 * table goes into *mem, NULL for none (other borders, one tap). */
static oclconv_status edge_rescales(oclconv_context *ctx, const oclconv__job *job,
                                    const float *taps, int n, int extent, cl_mem *mem)
{
    int r = n / 2;
    size_t count = extent > 2 * r ? 2 * (size_t)r : (size_t)extent;
    if (job->opt.border != OCLCONV_BORDER_NORMALIZE || r == 0)
        return OCLCONV_OK;
    double *table = malloc(count * sizeof *table), all = sum_of(taps, n);
    if (!table)
        return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for NORMALIZE's rescales");
    for (size_t e = 0; e < count; e++) {
        int i = extent > 2 * r && e >= (size_t)r ? extent - 1 - ((int)e - r) : (int)e;
        int first = i < r ? r - i : 0, end = i + r >= extent ? r + extent - i : n;
        double in = sum_of(taps + first, end - first);
        table[e] = in != 0 ? all / in : 0;
    }
    oclconv_status s = oclconv__upload_weights(ctx, job, table, count, mem);
    free(table);
    return s;
}

/* CPU bands: vectors a work-item makes side by side, as many as keep its
 * ring of 2 FH row-pass rows within 16 KB (L1), at most 8.  The kernel
 * unrolls its chunks, so they set its compile time: on PoCL 3.1 (2-core
 * AMD EPYC, 4K Gaussians r1-r7 of u8, u16 and f32, 1 to 4 channels,
 * alternating rounds) a program took 0.44-0.64 s to its first run with 8
 * against 0.59-0.77 s with 16, and ran as fast to r3 (36 cells' ratios
 * 0.73-1.45x, within the rounds' spread, geometric mean 1.06x) and a
 * little slower from r7 (median of 15 runs, three rounds: f32 gray r7
 * 0.92-1.02x, r11 0.98x, u8 gray and RGBA r11-r15 0.96-1.01x).  With 4:
 * 0.34-0.47 s, but u8 gray r1 and u16 RGB 0.75-0.85x. */
static int fused_chunks(const oclconv__job *job)
{
    size_t ring_row = 2 * (size_t)job->filter->height * (size_t)job->vec * oclconv__acc_size(job);
    size_t chunks = 16384 / ring_row;
    return chunks < 1 ? 1 : chunks > 8 ? 8 : (int)chunks;
}

oclconv_status oclconv__run_separable(oclconv_context *ctx, const oclconv__job *job,
                                      const oclconv__io *io)
{
    char options[512];
    oclconv__common_options(ctx, job, options, sizeof options);
    size_t used = strlen(options), chunks = (size_t)fused_chunks(job);
    int slide_x = job->cpu_shapes ? 0 : OCLCONV_SLIDE_X;
    /* Bands prefetch their rows on CPU devices only (cl/separable_cpu.cl). */
    if (job->fused == OCLCONV_FUSED_BANDS)
        snprintf(options + used, sizeof options - used,
                 " -DBAND=%d -DCHUNKS=%zu -DPREFETCH=%d -DSYM_ROW=%d -DSYM_COL=%d", job->band,
                 chunks, (ctx->facts.type & CL_DEVICE_TYPE_CPU) != 0,
                 oclconv__paired_pass(job, job->filter->row, job->filter->width),
                 oclconv__paired_pass(job, job->filter->col, job->filter->height));
    else if (job->fused == OCLCONV_FUSED_TILES)
        snprintf(options + used, sizeof options - used,
                 " -DTILE_W=%d -DTILE_H=%d -DPY=%d -DEQUAL_ROW=%d -DEQUAL_COL=%d -DCHUNK_BUFS=%d"
                 " -DHOR_PAD=%d -DVALUE_SHIFT=%d",
                 job->local[0], job->local[1], job->band, job->equal_row, job->equal_col,
                 job->chunk_bufs, job->hor_pad, job->value_shift);
    else
        snprintf(options + used, sizeof options - used, " -DSLIDE_X=%d -DSLIDE_Y=%d", slide_x,
                 OCLCONV_SLIDE_Y);
    cl_kernel k[2];
    /* CPU bands in separable_cpu.cl (with chunks.cl), GPU tiles in separable_gpu.cl. */
    const char *files = job->fused == OCLCONV_FUSED_BANDS   ? "separable chunks separable_cpu"
                        : job->fused == OCLCONV_FUSED_TILES ? "separable separable_gpu"
                                                            : "separable";
    oclconv_status s = oclconv__pass_kernels(ctx, files, options, job->fused, k);
    if (s != OCLCONV_OK)
        return s;
    cl_kernel fused = k[0], rows = k[0], cols = k[1];
    const oclconv_filter *f = job->filter;
    size_t pitch = oclconv__vec_pitch(job), a = oclconv__acc_size(job);
    size_t fw = (size_t)f->width, fh = (size_t)f->height;
    double *taps = malloc((fw + fh) * sizeof *taps);
    if (!taps)
        return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for the taps");
    for (size_t i = 0; i < fw; i++)
        taps[i] = f->row[i];
    for (size_t j = 0; j < fh; j++)
        taps[fw + j] = f->col[j];
    cl_mem tmp = NULL, row_w = NULL, col_w = NULL, row_edges = NULL, col_edges = NULL;
    cl_int width = job->src->width, height = job->src->height, pitch_arg = (cl_int)pitch;
    if (!job->fused)
        s = oclconv__scratch(ctx, 2, pitch * (size_t)job->src->height * a * oclconv__stack_of(job),
                              &tmp);
    if (s == OCLCONV_OK)
        s = edge_rescales(ctx, job, f->row, f->width, width, &row_edges);
    if (s == OCLCONV_OK)
        s = edge_rescales(ctx, job, f->col, f->height, height, &col_edges);

    /* The border value as the row pass takes its values (value_shift), and
     * what a row outside the image sums to (oclconv__range_shifts()). */
    double bv = job->opt.border == OCLCONV_BORDER_CONSTANT ? job->opt.border_value : 0;
    oclconv__acc bv_acc = oclconv__to_acc(job, ldexp(bv, -job->value_shift));
    oclconv__acc outside_row = oclconv__to_acc(
        job, ldexp(bv * sum_of(f->row, f->width), -job->shift[0] - job->value_shift));
    oclconv__acc scale = oclconv__to_acc(job, oclconv__shifted_scale(job));
    oclconv__acc delta = oclconv__to_acc(job, job->opt.delta);
    size_t m = sizeof(cl_mem);
    size_t groups_x = pitch / (size_t)job->vec;
    if (job->fused) {
        if (s == OCLCONV_OK)
            s = oclconv__args(ctx, fused, 0, 4, sizeof io->in, &io->in, sizeof io->out, &io->out,
                              sizeof width, &width, sizeof height, &height);
        if (s == OCLCONV_OK)
            s = oclconv__taps_arg(ctx, job, fused, 4, taps, fw, job->shift[0], &row_w);
        if (s == OCLCONV_OK)
            s = oclconv__taps_arg(ctx, job, fused, 5, taps + fw, fh, job->shift[1], &col_w);
        if (s == OCLCONV_OK)
            s = oclconv__args(ctx, fused, 6, 6, a, &bv_acc, m, &row_edges, a, &outside_row, a,
                              &scale, a, &delta, m, &col_edges);
        /* Bands: a work-item makes fused_chunks() vectors side by side down
         * `band` rows of the kept window (the destination), a long walk, one a
         * group so they spread over every core.  Tiles: a work-item goes down
         * `band` rows; the global size rounded up to whole work-groups makes
         * whole tiles. */
        if (job->fused == OCLCONV_FUSED_BANDS) {
            cl_int layout[6];
            oclconv__io_layout(job, io, layout);
            size_t vectors = ((size_t)layout[4] + (size_t)job->vec - 1) / (size_t)job->vec;
            size_t bands = ((size_t)layout[5] + (size_t)job->band - 1) / (size_t)job->band;
            if (s == OCLCONV_OK)
                s = oclconv__layout_args(ctx, fused, 12, layout);
            if (s == OCLCONV_OK)
                s = oclconv__run_2d_local(ctx, job, fused, (vectors + chunks - 1) / chunks, bands,
                                          1, 1);
        } else if (s == OCLCONV_OK) {
            size_t bands = ((size_t)height + (size_t)job->band - 1) / (size_t)job->band;
            s = oclconv__run_2d(ctx, job, fused, groups_x, bands);
        }
    } else {
        if (s == OCLCONV_OK)
            s = oclconv__taps_arg(ctx, job, rows, 5, taps, fw, job->shift[0], &row_w);
        if (s == OCLCONV_OK)
            s = oclconv__taps_arg(ctx, job, cols, 5, taps + fw, fh, job->shift[1], &col_w);
        if (s == OCLCONV_OK)
            s = oclconv__args(ctx, rows, 0, 5, sizeof io->in, &io->in, sizeof tmp, &tmp,
                              sizeof width, &width, sizeof height, &height, sizeof pitch_arg,
                              &pitch_arg);
        if (s == OCLCONV_OK)
            s = oclconv__args(ctx, rows, 6, 2, a, &bv_acc, m, &row_edges);
        if (s == OCLCONV_OK)
            s = oclconv__args(ctx, cols, 0, 5, sizeof tmp, &tmp, sizeof io->out, &io->out,
                              sizeof width, &width, sizeof height, &height, sizeof pitch_arg,
                              &pitch_arg);
        if (s == OCLCONV_OK)
            s = oclconv__args(ctx, cols, 6, 4, a, &outside_row, a, &scale, a, &delta, m,
                              &col_edges);
        if (s == OCLCONV_OK)
            s = oclconv__run_2d(ctx, job, rows,
                                slide_x ? ((size_t)width + slide_x - 1) / slide_x : groups_x,
                                (size_t)height);
        if (s == OCLCONV_OK)
            s = oclconv__run_2d(ctx, job, cols, groups_x,
                                ((size_t)height + OCLCONV_SLIDE_Y - 1) / OCLCONV_SLIDE_Y);
    }
    free(taps);
    cl_mem held[] = {row_w, col_w, row_edges, col_edges};
    for (size_t i = 0; i < sizeof held / sizeof *held; i++)
        if (held[i])
            clReleaseMemObject(held[i]);
    return s;
}
