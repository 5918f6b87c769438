/* The FFT path (src/path_fft.c) and its transforms (src/fft.c): the run,
 * the bound on the transforms' rounding, and the plans, a tile size and
 * group of planes each, kept in the context.  Whether the planner takes
 * the path is in src/path_rules.h. */
#ifndef OCLCONV_FFT_H
#define OCLCONV_FFT_H

#include "internal.h"

typedef struct oclconv__fft_plan oclconv__fft_plan;

/* The FFT path (path_fft.c): its run; its plans and group buffers, a tile
 * size each (fft.c). */
oclconv_status oclconv__run_fft(oclconv_context *ctx, const oclconv__job *job,
                                const oclconv__io *io);
void oclconv__fft_spectra_free(oclconv_context *ctx);
/* How far a transform of tiles of `tile` and back moves a sum of weights'
 * magnitudes abs_sum over values of at most `largest`, a priori. */
double oclconv__fft_bound(int tile, double abs_sum, double largest);
size_t oclconv__fft_plane_doubles(int tile);
/* The plans that transform an image's `planes` planes, `per_tile` a tile:
 * groups of *group (whole tiles' planes) through *plan, the last group,
 * where fewer are left, through *rest (NULL where none are left), in
 * *plan's buffer; made once a context. */
oclconv_status oclconv__fft_plans(oclconv_context *ctx, int tile, long long planes, int per_tile,
                                  int *group, oclconv__fft_plan **plan, oclconv__fft_plan **rest);
cl_mem oclconv__fft_buffer(const oclconv__fft_plan *p);
oclconv_status oclconv__fft_transform(oclconv_context *ctx, oclconv__fft_plan *p, int inverse);
void oclconv__fft_free(oclconv_context *ctx);

#endif
