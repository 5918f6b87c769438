/*
 * oclconv on images the application already holds in OpenCL buffers of the
 * context's cl_context: filtered on the context's queue, ordered by events,
 * with no host copies.  Part of the public contract; oclconv.h includes it.
 */
#ifndef OCLCONV_CL_H
#define OCLCONV_CL_H

#include "oclconv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====== Device-resident images ======================================= */
/* An image the application already holds in an OpenCL buffer of the
 * context's cl_context: packed rows of width * channels values of `type`
 * from the buffer's start. */
typedef struct {
    cl_mem mem;
    int width, height, channels;
    oclconv_type type;
} oclconv_cl_image;

/*! oclconv_apply_cl() :
 *  Filters `src` into `dst` on the context's queue without host copies and
 *  without waiting: the work starts once the `num_events` events of
 *  `wait_list` have completed, and `*done` (when not NULL) receives an event
 *  that completes with it; the caller releases it.  Semantics, options and
 *  argument checks are those of oclconv_apply(); `src` and `dst` may share
 *  memory (the same buffer, sub-buffers of one buffer whose ranges meet,
 *  or a buffer and a sub-buffer of it): the kernels then write to scratch
 *  and a copy follows, and the result is as if they did not.  Every event
 *  of `wait_list` must belong to the context's cl_context and must not
 *  have failed already (a negative execution status, a user event set so):
 *  such a list is OCLCONV_E_INVALID_ARG, since commands waiting on a failed
 *  event never run and `*done` would never complete.  An event that fails
 *  after the call has enqueued its work leaves that work to the driver
 *  (OpenCL does not say what becomes of it; PoCL never runs it, and `*done`
 *  never completes).  The buffer paths run (AUTO, BUFFER, TILED, SEPARABLE, BOX);
 *  IMAGE is OCLCONV_E_UNSUPPORTED here.  The context's kernel time for
 *  these calls reads 0, since reading it would mean waiting.
 *  @return as oclconv_apply(); on failure *done is NULL and nothing the
 *          call enqueued is still running. */
OCLCONV_API oclconv_status oclconv_apply_cl(oclconv_context *ctx, const oclconv_cl_image *src,
                                            const oclconv_cl_image *dst,
                                            const oclconv_filter *f,
                                            const oclconv_options *opt, cl_uint num_events,
                                            const cl_event *wait_list, cl_event *done);

/*! oclconv_apply_region_cl() :
 *  oclconv_apply_region() on device-resident images: `src` holds the
 *  rectangle of the whole image at (region->src_x, src_y), packed, of its
 *  own width and height, and `dst` the rectangle at (dst_x, dst_y); the
 *  rule for what `src` must hold, the checks and the result are
 *  oclconv_apply_region()'s, the waiting, events and sharing of memory
 *  oclconv_apply_cl()'s.  The grown rectangle is gathered into the
 *  context's scratch buffers on the device and the destination's rectangle
 *  copied out of the kernels' result (clEnqueueCopyBufferRect); nothing
 *  goes through the host. */
OCLCONV_API oclconv_status oclconv_apply_region_cl(oclconv_context *ctx,
                                                   const oclconv_cl_image *src,
                                                   const oclconv_region *region,
                                                   const oclconv_cl_image *dst,
                                                   const oclconv_filter *f,
                                                   const oclconv_options *opt,
                                                   cl_uint num_events, const cl_event *wait_list,
                                                   cl_event *done);

#ifdef __cplusplus
}
#endif
#endif /* OCLCONV_CL_H */
