/* The box path (cl/box.cl, then box_cpu.cl or box_gpu.cl): window sums along rows and down
 * columns, in one pass or two. */
#include "internal.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Float sources: box_check's findings start from nothing seen. */
static const cl_uint check_start[2] = {0, INT_MAX};

/* The arguments of a row pass and a column pass through tmp; `check` (float
 * sources) last. */
static oclconv_status pass_args(oclconv_context *ctx, cl_kernel rows, cl_kernel cols,
                                const oclconv__io *io, cl_mem tmp, cl_int width, cl_int height,
                                cl_int pitch, size_t a, const oclconv__acc finish[4], cl_mem check)
{
    oclconv_status s = oclconv__args(ctx, rows, 0, 5, sizeof io->in, &io->in, sizeof tmp, &tmp,
                                     sizeof width, &width, sizeof height, &height, sizeof pitch,
                                     &pitch);
    if (s == OCLCONV_OK)
        s = oclconv__args(ctx, cols, 0, 9, sizeof tmp, &tmp, sizeof io->out, &io->out,
                          sizeof width, &width, sizeof height, &height, sizeof pitch, &pitch, a,
                          &finish[0], a, &finish[1], a, &finish[2], a, &finish[3]);
    if (s == OCLCONV_OK && check)
        s = oclconv__args(ctx, rows, 5, 1, sizeof check, &check);
    if (s == OCLCONV_OK && check)
        s = oclconv__args(ctx, cols, 9, 1, sizeof check, &check);
    return s;
}

/* The radii, a CPU box program's kernels' last two arguments from `index`
 * (cl/box.cl RADII_PARAM); other programs have them built in. */
static oclconv_status radii_args(oclconv_context *ctx, const oclconv__job *job, cl_kernel k,
                                 cl_uint index)
{
    cl_int rx = job->filter->width / 2, ry = job->filter->height / 2;
    return job->radius_args ? oclconv__args(ctx, k, index, 2, sizeof rx, &rx, sizeof ry, &ry)
                            : OCLCONV_OK;
}

/* GPUs: the float walks' blocks in local memory (cl/box_gpu.cl walk_block), of
 * at most OCLCONV_WALK_MOST sums a work-item of a group of
 * OCLCONV_BOX_SEGMENT.  The row walk's: a line of `outs` pixels, 2 or 1
 * OCLCONV_BOX_SEGMENT, and FW - 1 more; the column walk's: `rows` output
 * rows of `cols` values, 32, 16 or 8, and FH - 1 rows more: the widest
 * that reads at most 1.25 times as many rows for each it makes as the
 * fewest (NVIDIA, 8K and 4K f32: 16 values the fastest at r31 and r63,
 * by up to 7 %, 8 at r127; 32, which read 1.4x the rows of 8 at r31 and
 * 2.7x at r127, 0.67x there).  0 where not even the smallest fits (a
 * work-item then walks OCLCONV_WALK_BAND pixels or rows, as on CPUs). */
struct walk_blocks {
    int outs, cols, rows;
};

static struct walk_blocks walk_blocks(const oclconv__job *job)
{
    struct walk_blocks w = {0, 0, 0};
    size_t seg = OCLCONV_BOX_SEGMENT, a = oclconv__acc_size(job), most = OCLCONV_WALK_MOST * seg;
    if (job->cpu_shapes || job->local_mem < 1024 + seg * a)
        return w;
    if (most * a + 1024 > job->local_mem)
        most = (job->local_mem - 1024) / a;
    size_t cn = (size_t)job->src->channels, fw = (size_t)job->filter->width;
    size_t fh = (size_t)job->filter->height;
    for (size_t k = 2; k >= 1 && !w.outs; k--)
        if ((k * seg + fw - 1) * cn <= most)
            w.outs = (int)(k * seg);
    /* Output rows of a block `32 >> k` values wide, and the rows read for
     * each; then the widest within a quarter of the fewest. */
    size_t rows[3];
    double reads[3], fewest = INFINITY;
    for (int k = 0; k < 3; k++) {
        size_t step = seg / (32u >> k), len = most / (32u >> k);
        rows[k] = len < fh - 1 + step ? 0 : (len - (fh - 1)) / step * step;
        reads[k] = rows[k] ? (double)(rows[k] + fh - 1) / (double)rows[k] : INFINITY;
        fewest = reads[k] < fewest ? reads[k] : fewest;
    }
    for (int k = 0; k < 3 && !w.rows; k++)
        if (rows[k] && reads[k] <= 1.25 * fewest) {
            w.cols = (int)(32u >> k);
            w.rows = (int)rows[k];
        }
    return w;
}

oclconv_status oclconv__run_box(oclconv_context *ctx, const oclconv__job *job,
                                const oclconv__io *io)
{
    char options[512];
    oclconv__common_options(ctx, job, options, sizeof options);
    size_t used = strlen(options);
    const oclconv_filter *f = job->filter;
    /* Row sums that fit 16 bits go through scratch as ushort. */
    int narrow = !job->fused && oclconv__sums_fit16(job, (size_t)f->width);
    int walks = !job->sum_int; /* float sums: checked, and walked where inexact */
    int tiles = job->fused == OCLCONV_FUSED_TILES, line = job->tile[0];
    int quads = job->fused == OCLCONV_FUSED_QUADS;
    struct walk_blocks walk = {0, 0, 0};
    if (walks)
        walk = walk_blocks(job);
    used += (size_t)snprintf(options + used, sizeof options - used,
                             " -DSUM_INT=%d -DNARROW_ROWS=%d -DBAND=%d -DSEGMENT=%d "
                             "-DWALK_BAND=%d -DWALK_MOST=%d%s",
                             job->sum_int, narrow, job->band, OCLCONV_BOX_SEGMENT,
                             OCLCONV_WALK_BAND, OCLCONV_WALK_MOST,
                             job->fused == OCLCONV_FUSED_BANDS ? " -DFUSED" : "");
    if (walk.outs)
        used += (size_t)snprintf(options + used, sizeof options - used, " -DWALK_OUTS=%d",
                                 walk.outs);
    if (walk.rows)
        used += (size_t)snprintf(options + used, sizeof options - used,
                                 " -DWALK_COLS=%d -DWALK_ROWS=%d", walk.cols, walk.rows);
    if (tiles)
        snprintf(options + used, sizeof options - used, " -DLINE=%d -DCH=%d -DPACK16=%d", line,
                 job->tile[1], job->pack16);
    else if (quads)
        snprintf(options + used, sizeof options - used, " -DQUADS -DQW=%d -DQH=%d -DQPY=%d",
                 job->local[0], job->local[1], job->band);
    size_t pitch = oclconv__vec_pitch(job), v = (size_t)job->vec;
    size_t sum_size = narrow ? sizeof(cl_ushort) : oclconv__sum_size(job);
    size_t bands = ((size_t)job->src->height + (size_t)job->band - 1) / (size_t)job->band;
    cl_kernel k[2], check_k = NULL, walk_rows = NULL, walk_cols = NULL;
    /* CPU bands in box_cpu.cl; GPU lines, quads and two passes in box_gpu.cl. */
    const char *files = job->fused == OCLCONV_FUSED_BANDS ? "box box_cpu" : "box box_gpu";
    oclconv_status s = oclconv__pass_kernels(ctx, files, options, job->fused, k);
    if (s == OCLCONV_OK && walks)
        s = oclconv__get_kernel(ctx, files, "box_check", options, &check_k);
    if (s == OCLCONV_OK && walks)
        s = oclconv__get_kernel(ctx, files, "box_walk_rows", options, &walk_rows);
    if (s == OCLCONV_OK && walks)
        s = oclconv__get_kernel(ctx, files, "box_walk_cols", options, &walk_cols);
    if (s != OCLCONV_OK)
        return s;
    cl_kernel fused = k[0], rows = k[0], cols = k[1];
    /* bands: two rows of sums a band; two passes, and the walks: a row pass */
    size_t rows_of_sums = job->fused == OCLCONV_FUSED_BANDS ? 2 * bands : 0;
    if ((!job->fused || walks) && rows_of_sums < (size_t)job->src->height)
        rows_of_sums = (size_t)job->src->height;
    cl_mem tmp = NULL, check = NULL;
    if (rows_of_sums)
        s = oclconv__scratch(ctx, 2, pitch * rows_of_sums * sum_size, &tmp);
    if (s == OCLCONV_OK && walks)
        s = oclconv__scratch(ctx, 3, sizeof check_start, &check);
    if (s == OCLCONV_OK && walks) {
        cl_int err = clEnqueueWriteBuffer(ctx->queue, check, CL_FALSE, 0, sizeof check_start,
                                          check_start, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            s = oclconv__cl_fail(ctx, err, "clEnqueueWriteBuffer (box check)");
    }
    cl_int width = job->src->width, height = job->src->height, pitch_arg = (cl_int)pitch;
    cl_ulong values = (cl_ulong)width * (cl_ulong)height * (cl_ulong)job->src->channels;
    /* Every tap of a box has the same weight, the exact product of a row tap
     * and a column tap. */
    oclconv__acc finish[4] = {oclconv__to_acc(job, (double)f->row[0] * f->col[0]),
                              oclconv__to_acc(job, job->opt.border_value),
                              oclconv__to_acc(job, job->opt.scale),
                              oclconv__to_acc(job, job->opt.delta)};
    size_t a = oclconv__acc_size(job);
    if (s == OCLCONV_OK && walks) {
        /* CPUs: a few work-items a core, each reading one contiguous
         * share; GPUs: one for every 16 vectors, reading side by side, in
         * groups of OCLCONV_BOX_SEGMENT (box_ok made sure they fit). */
        cl_ulong vectors = values / v, checkers = job->cpu_shapes
                                                      ? 64 * (cl_ulong)ctx->facts.compute_units
                                                      : vectors / 16 + 1;
        cl_ulong chunk = job->cpu_shapes ? (vectors + checkers - 1) / checkers : 1;
        size_t group = job->cpu_shapes ? 1 : OCLCONV_BOX_SEGMENT;
        s = oclconv__args(ctx, check_k, 0, 4, sizeof io->in, &io->in, sizeof values, &values,
                          sizeof chunk, &chunk, sizeof check, &check);
        if (s == OCLCONV_OK)
            s = oclconv__run_2d_local(ctx, job, check_k, (size_t)checkers, 1, group, 1);
    }
    if (s != OCLCONV_OK)
        return s;
    /* The running sums (fused on CPUs), then for float sources the walks;
     * the check has each return at once where it is not the one to run. */
    if (tiles || quads) {
        s = oclconv__args(ctx, fused, 0, 8, sizeof io->in, &io->in, sizeof io->out, &io->out,
                          sizeof width, &width, sizeof height, &height, a, &finish[0], a,
                          &finish[1], a, &finish[2], a, &finish[3]);
        if (s == OCLCONV_OK && walks)
            s = oclconv__args(ctx, fused, 8, 1, sizeof check, &check);
    }
    if (tiles) {
        /* A group a line of LINE - width outputs by a band. */
        size_t outs = (size_t)(line - f->width);
        if (s == OCLCONV_OK)
            s = oclconv__run_2d_local(ctx, job, fused,
                                      ((size_t)width + outs - 1) / outs * OCLCONV_BOX_SEGMENT,
                                      bands, OCLCONV_BOX_SEGMENT, 1);
    } else if (quads) {
        /* A work-item a quad of 4 pixels by `band` rows. */
        size_t qw = (size_t)job->local[0], qh = (size_t)job->local[1];
        size_t across = ((size_t)width + 3) / 4, tall = qh * (size_t)job->band;
        if (s == OCLCONV_OK)
            s = oclconv__run_2d_local(ctx, job, fused, (across + qw - 1) / qw * qw,
                                      ((size_t)height + tall - 1) / tall * qh, qw, qh);
    } else if (job->fused) {
        s = oclconv__args(ctx, fused, 0, 10, sizeof io->in, &io->in, sizeof io->out, &io->out,
                          sizeof tmp, &tmp, sizeof width, &width, sizeof height, &height,
                          sizeof pitch_arg, &pitch_arg, a, &finish[0], a, &finish[1], a,
                          &finish[2], a, &finish[3]);
        if (s == OCLCONV_OK && walks)
            s = oclconv__args(ctx, fused, 10, 1, sizeof check, &check);
        if (s == OCLCONV_OK)
            s = radii_args(ctx, job, fused, walks ? 11 : 10);
        /* The window made and the rows' pitches (integer sums: float ones'
         * check and walks take the whole packed image). */
        cl_int layout[6];
        oclconv__io_layout(job, io, layout);
        if (s == OCLCONV_OK)
            s = oclconv__layout_args(ctx, fused, (walks ? 11 : 10) + (job->radius_args ? 2 : 0),
                                     layout);
        /* Each work-item is a long sequential walk: one a group, so the
         * few of them spread over every core. */
        if (s == OCLCONV_OK)
            s = oclconv__run_2d_local(ctx, job, fused, 1,
                                      ((size_t)layout[5] + (size_t)job->band - 1) /
                                          (size_t)job->band,
                                      1, 1);
    }
    /* Two passes through tmp: the running sums on GPUs, the walks for
     * float sources.  Float rows walk OCLCONV_WALK_BAND pixels a work-item
     * at a time (GPUs whose local memory holds no walk line), on CPUs a
     * whole row, one a group. */
    size_t walkers = ((size_t)width + OCLCONV_WALK_BAND - 1) / OCLCONV_WALK_BAND;
    size_t walk_bands = ((size_t)height + OCLCONV_WALK_BAND - 1) / OCLCONV_WALK_BAND;
    if (s == OCLCONV_OK && !job->fused)
        s = pass_args(ctx, rows, cols, io, tmp, width, height, pitch_arg, a, finish, check);
    /* The running sums' row pass: a group of OCLCONV_BOX_SEGMENT makes twice as
     * many pixels. */
    size_t row_groups = ((size_t)width + 2 * OCLCONV_BOX_SEGMENT - 1) / (2 * OCLCONV_BOX_SEGMENT);
    if (s == OCLCONV_OK && !job->fused)
        s = oclconv__run_2d_local(ctx, job, rows, row_groups * OCLCONV_BOX_SEGMENT, (size_t)height,
                                  OCLCONV_BOX_SEGMENT, 1);
    if (s == OCLCONV_OK && !job->fused)
        s = oclconv__run_2d(ctx, job, cols, pitch / v, bands);
    if (s == OCLCONV_OK && walks)
        s = pass_args(ctx, walk_rows, walk_cols, io, tmp, width, height, pitch_arg, a, finish,
                      check);
    if (s == OCLCONV_OK && walks)
        s = radii_args(ctx, job, walk_rows, 6);
    if (s == OCLCONV_OK && walks)
        s = radii_args(ctx, job, walk_cols, 10);
    if (s == OCLCONV_OK && walks) {
        if (walk.outs) /* a group a line of walk.outs pixels */
            s = oclconv__run_2d_local(ctx, job, walk_rows,
                                      ((size_t)width + walk.outs - 1) / walk.outs *
                                          OCLCONV_BOX_SEGMENT,
                                      (size_t)height, OCLCONV_BOX_SEGMENT, 1);
        else if (job->cpu_shapes)
            s = oclconv__run_2d_local(ctx, job, walk_rows, 1, (size_t)height, 1, 1);
        else
            s = oclconv__run_2d(ctx, job, walk_rows, walkers, (size_t)height);
    }
    if (s == OCLCONV_OK && walks && walk.rows) /* a group a block of walk.rows x walk.cols */
        s = oclconv__run_2d_local(ctx, job, walk_cols,
                                  ((size_t)width * (size_t)job->src->channels + walk.cols - 1) /
                                      walk.cols * OCLCONV_BOX_SEGMENT,
                                  ((size_t)height + walk.rows - 1) / walk.rows,
                                  OCLCONV_BOX_SEGMENT, 1);
    else if (s == OCLCONV_OK && walks)
        s = oclconv__run_2d(ctx, job, walk_cols, pitch / v, walk_bands);
    return s;
}
