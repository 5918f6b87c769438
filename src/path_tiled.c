/* The tiled path (cl/tiled.cl): a work-group's tile of the source with the
 * filter's halo, converted into __local memory once; each work-item makes
 * job->vec values of job->band rows from there. */
#include "internal.h"
#include "path_rules.h"

#include <stdio.h>

/* The local memory of a tile of tx x ty work-items, each vec values by
 * rows rows, its values `acc` bytes each, with 1 KB to spare. */
static size_t tile_bytes(const oclconv__job *job, int tx, int ty, int vec, int rows, size_t acc)
{
    const oclconv_filter *f = job->filter;
    size_t pad = ((size_t)(f->width / 2) * (size_t)job->src->channels + 3) / 4 * 4;
    size_t w = (size_t)tx * (size_t)vec + 2 * pad, h = (size_t)ty * (size_t)rows + 2 * (size_t)(f->height / 2);
    return w * h * acc + 1024;
}

static int shape_fits(const oclconv_context *ctx, const oclconv__job *job, int tx, int ty, int vec,
                      int rows, size_t acc)
{
    return (size_t)tx * (size_t)ty <= ctx->facts.max_work_group &&
           (size_t)tx <= ctx->facts.max_work_item[0] && (size_t)ty <= ctx->facts.max_work_item[1] &&
           tile_bytes(job, tx, ty, vec, rows, acc) <= job->local_mem;
}

oclconv_status oclconv__tiled_ok(oclconv_context *ctx, const oclconv__job *job)
{
    if (shape_fits(ctx, job, 4, 1, 4, 1, sizeof(double)))
        return OCLCONV_OK;
    const oclconv_filter *f = job->filter;
    return oclconv__fail(ctx, OCLCONV_E_UNSUPPORTED,
                         "a %dx%d filter's halo does not fit the device's %llu bytes of local memory",
                         f->width, f->height, (unsigned long long)job->local_mem);
}

/* GPUs: groups of 16 x 8 work-items of 4 values, up to 15x15 in 4 rows
 * (float images 2, whose sums are doubles from 15x15 on a device with
 * them), fewer rows of work-items where the tile would not fit; past
 * 15x15 one row.  Measured against other shapes (H200, 8K, kernel
 * MP/s, 3x3 / 5x5 / 7x7 / 15x15): 8-bit RGBA 8 values a work-item
 * 0.89x / 0.94x / 0.97x / 0.91x, and 8 in 2 rows 0.83-0.55x; u8 gray 32 x 8
 * 0.92-1.0x, 2 rows 0.97-0.85x; f32 gray one row 0.86x / 0.79x / 0.83x /
 * 0.51x.  CPUs: groups of 16 x 4 work-items of 4 values and one row. */
void oclconv__plan_tiled(const oclconv_context *ctx, oclconv__job *job)
{
    const oclconv_filter *f = job->filter;
    size_t acc = oclconv__acc_size(job);
    int rows = 1, tx = 16, ty = job->cpu_shapes ? 4 : 8;
    if (!job->cpu_shapes) {
        job->taps_by_value = oclconv__taps_fit(ctx, job, (size_t)f->width * (size_t)f->height);
        if (f->width <= 15 && f->height <= 15)
            rows = job->src->type == OCLCONV_F32 ? 2 : 4;
    }
    while (!shape_fits(ctx, job, tx, ty, 4, rows, acc)) {
        if (ty > 1)
            ty /= 2;
        else if (rows > 1)
            rows /= 2, ty = 8;
        else
            tx /= 2; /* 4 x 1 fits: oclconv__tiled_ok() */
    }
    job->vec = 4;
    job->band = rows;
    job->local[0] = tx;
    job->local[1] = ty;
}

oclconv_status oclconv__run_tiled(oclconv_context *ctx, const oclconv__job *job,
                                  const oclconv__io *io)
{
    char tile[64];
    int vec = job->vec, rows = job->band;
    snprintf(tile, sizeof tile, " -DTX=%d -DTY=%d -DROWS=%d", job->local[0], job->local[1], rows);
    size_t values = (size_t)job->src->width * (size_t)job->src->channels;
    return oclconv__run_direct(ctx, job, io, "tiled", "convolve_tiled", tile, NULL,
                               (values + (size_t)vec - 1) / (size_t)vec,
                               ((size_t)job->src->height + (size_t)rows - 1) / (size_t)rows);
}
