/* What the paths tell the planner (src/plan.c): whether a path can run a
 * job here (the reason in ctx where not), whether AUTO's rules take it,
 * and the shapes planned once the sums' type is known. */
#ifndef OCLCONV_PATH_RULES_H
#define OCLCONV_PATH_RULES_H

#include "internal.h"

/* The image path (path_image.c). */
oclconv_status oclconv__image_supported(oclconv_context *ctx, const oclconv__job *job);
/* The tiled path (path_tiled.c): whether the smallest tile fits, and its shape. */
oclconv_status oclconv__tiled_ok(oclconv_context *ctx, const oclconv__job *job);
void oclconv__plan_tiled(const oclconv_context *ctx, oclconv__job *job);
/* Whether a filter's runs are few enough beside its taps for AUTO to take
 * them, in CPU or GPU kernel shapes, on a float image or not (path_runs.c). */
int oclconv__runs_pay(const oclconv_filter *f, int cpu_shapes, int float_src);
/* The runs' sums' work-group, where it is not the planner's. */
void oclconv__plan_runs(oclconv__job *job);
/* The FFT path (path_fft.c): whether it keeps the contract for this job,
 * and whether AUTO's rule takes it. */
oclconv_status oclconv__fft_ok(oclconv_context *ctx, const oclconv__job *job);
int oclconv__fft_pays(const oclconv__job *job);
/* Whether n taps of the job's sums and a kernel's other arguments fit the
 * device's parameter size, so the kernel can take them by value (plan.c). */
int oclconv__taps_fit(const oclconv_context *ctx, const oclconv__job *job, size_t n);
/* GPUs: whether an 8-bit RGBA box runs in quads (plan.c). */
int oclconv__quads_fit(const oclconv_context *ctx, const oclconv__job *job);
/* GPU shapes (plan_gpu.c): the separable path's tiles, the box path's
 * quads or tiles, the buffer path's taps by value and rows a work-item. */
void oclconv__plan_separable_tiles(const oclconv_context *ctx, oclconv__job *job);
void oclconv__plan_box_tiles(const oclconv_context *ctx, oclconv__job *job);
void oclconv__plan_buffer_rows(const oclconv_context *ctx, oclconv__job *job);

#endif
