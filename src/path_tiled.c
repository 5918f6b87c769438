/* The tiled path (cl/tiled.cl): a work-group's tile plus halo in __local memory. */
#include "internal.h"

#include <stdio.h>

oclconv_status oclconv__run_tiled(oclconv_context *ctx, const oclconv__job *job,
                                  const oclconv__io *io)
{
    char tile[64];
    snprintf(tile, sizeof tile, " -DTX=%d -DTY=%d", job->tile[0], job->tile[1]);
    return oclconv__run_direct(ctx, job, io, "tiled", "convolve_tiled", tile,
                               (size_t)job->src->width, (size_t)job->src->height);
}
