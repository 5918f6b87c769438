/*
 * oclconv — image convolution on any OpenCL device.
 *
 * This header, with oclconv_cl.h which it includes (images already in
 * OpenCL buffers), is the whole public contract: a function, type or macro
 * that is not declared there is private and may change at any time.
 *
 * A call flows: oclconv_create() picks a device and makes a context;
 * oclconv_filter_*() describe the weights; oclconv_apply() filters one image
 * from host memory into host memory and returns a status.
 *
 * Threading: one context per thread.  A context (and everything it caches)
 * must not be used by two threads at the same time; distinct contexts are
 * independent and may run concurrently, also on the same device.  Filters are
 * immutable after creation and may be shared between threads freely.
 *
 * Lifetimes: using a context or a filter after its destroy call is undefined
 * behaviour, as using memory after free() is; so is a filter destroyed while
 * another thread applies it.  Everything else the API is given is checked.
 *
 * The library never prints, never exits and never aborts.  Every fallible
 * call returns an oclconv_status; the detail of the last failure is in
 * oclconv_errmsg().
 *
 * What it cannot stop: a kernel that fails to compile makes PoCL's clang
 * write "N error(s) generated." to file descriptor 2 itself (the
 * diagnostics come back in oclconv_errmsg()); no build option turns it off,
 * and redirecting descriptor 2 would hit every thread of the process.  The
 * built-in kernels compile on every supported device, so only sources from
 * OCLCONV_KERNEL_DIR that do not compile show it.  Warnings are off (-w).
 */
#ifndef OCLCONV_H
#define OCLCONV_H

#include <stddef.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && !defined(OCLCONV_API)
#define OCLCONV_API __attribute__((visibility("default")))
#elif !defined(OCLCONV_API)
#define OCLCONV_API
#endif

/* ====== Version ====================================================== */
#define OCLCONV_VERSION_MAJOR 0
#define OCLCONV_VERSION_MINOR 1
#define OCLCONV_VERSION_PATCH 0
#define OCLCONV_VERSION_NUMBER \
    (OCLCONV_VERSION_MAJOR * 10000 + OCLCONV_VERSION_MINOR * 100 + OCLCONV_VERSION_PATCH)

/*! oclconv_version_number() :
 *  @return OCLCONV_VERSION_NUMBER of the library actually linked. */
OCLCONV_API int oclconv_version_number(void);

/* ====== Status ======================================================= */
/* One table makes both the enum and the strings of oclconv_strerror(). */
#define OCLCONV_STATUS_MAP(XX)                                               \
    XX(OK, 0, "success")                                                     \
    XX(E_INVALID_ARG, -1, "invalid argument")                                \
    XX(E_NOMEM, -2, "out of memory")                                         \
    XX(E_NO_DEVICE, -3, "no matching OpenCL device")                         \
    XX(E_UNSUPPORTED, -4, "operation not supported by this device")          \
    XX(E_BUILD, -5, "OpenCL program failed to build")                        \
    XX(E_OPENCL, -6, "OpenCL runtime error")

typedef enum {
#define OCLCONV_STATUS_ENUM_(name, value, text) OCLCONV_##name = value,
    OCLCONV_STATUS_MAP(OCLCONV_STATUS_ENUM_)
#undef OCLCONV_STATUS_ENUM_
} oclconv_status;

/*! oclconv_strerror() :
 *  @return a static, never NULL, description of a status; "unknown status"
 *          for a value that is not an oclconv_status. */
OCLCONV_API const char *oclconv_strerror(oclconv_status s);

/* ====== Images ======================================================= */
typedef enum { OCLCONV_U8, OCLCONV_U16, OCLCONV_F32 } oclconv_type;

/* An image in host memory, owned by the caller.  Pixels are row-major,
 * `channels` (1..4) interleaved values of `type` each.  `stride` is the byte
 * distance between the starts of two rows; 0 means packed
 * (width * channels * sizeof(type)).  Rows need no alignment beyond that of
 * `type`.  On a device that shares the host's memory, an image whose data
 * start at a multiple of its pixel's size (of one value for 3 channels) is
 * filtered where it lies when packed, or strided by a multiple of that size
 * on CPU separable, buffer and 8/16-bit box kernels; any other is copied. */
typedef struct {
    void *data;
    int width, height, channels;
    oclconv_type type;
    size_t stride;
} oclconv_image;

/* ====== Borders, methods, options ==================================== */
/* What a tap reads outside the image (`abcdefgh` is one row):
 *   CLAMP       aaa|abcdefgh|hhh   (default; OpenCV BORDER_REPLICATE)
 *   ZERO        000|abcdefgh|000
 *   CONSTANT    vvv|abcdefgh|vvv   v = options.border_value
 *   REFLECT     cba|abcdefgh|hgf
 *   REFLECT101  dcb|abcdefgh|gfe   (OpenCV's default)
 *   WRAP        fgh|abcdefgh|abc
 *   NORMALIZE   out-of-image taps are dropped and the result is rescaled by
 *               (sum of all weights) / (sum of in-image weights); needs a
 *               filter whose weights have a non-zero sum (summed exactly:
 *               3e38, 1, -3e38 sum to 1).  Where every tap
 *               lies in the image, the result is the other borders' to the
 *               bit.
 * A filter larger than the image is legal: reflections repeat, wraps take
 * the modulus. */
typedef enum {
    OCLCONV_BORDER_CLAMP,
    OCLCONV_BORDER_ZERO,
    OCLCONV_BORDER_CONSTANT,
    OCLCONV_BORDER_REFLECT,
    OCLCONV_BORDER_REFLECT101,
    OCLCONV_BORDER_WRAP,
    OCLCONV_BORDER_NORMALIZE
} oclconv_border;

/* Which kernel runs.  AUTO chooses from what the device reports and from the
 * filter; forcing a path that cannot run the job (the device lacks what it
 * needs, or the filter is not of its kind) is OCLCONV_E_UNSUPPORTED.
 * The environment variable OCLCONV_METHOD (auto, buffer, image, tiled,
 * separable, box, runs, fft) overrides AUTO in options that leave the method at AUTO.
 * Kernel shapes (vector widths, fused bands or local-memory tiles) follow
 * the device type; OCLCONV_TUNE=cpu or gpu plans them as for that kind of
 * device instead (any other value is OCLCONV_E_INVALID_ARG), GPU shapes on
 * a CPU device within a GPU's usual 48 KB of local memory.
 * OCLCONV_BUILD_OPTIONS is added to every kernel's build options (say
 * -cl-opt-disable); a build they break is OCLCONV_E_BUILD. */
typedef enum {
    OCLCONV_METHOD_AUTO,
    OCLCONV_METHOD_BUFFER,    /* global memory, several values a work-item */
    OCLCONV_METHOD_IMAGE,     /* image2d_t and a sampler, weights in __constant */
    OCLCONV_METHOD_TILED,     /* tile plus halo staged in __local memory */
    OCLCONV_METHOD_SEPARABLE, /* row pass then column pass (rank-1 filters) */
    OCLCONV_METHOD_BOX,       /* running sums, cost independent of the radius
                                 (box filters: equal row taps, equal column taps) */
    OCLCONV_METHOD_RUNS,      /* discs, rings: runs of equal taps; 8/16-bit */
    OCLCONV_METHOD_FFT        /* large 2-D filters in tiles through FFTs; not float to integer */
} oclconv_method;

/*! oclconv_method_name() :
 *  @return "auto", "buffer", "image", "tiled", "separable", "box", "runs" or "fft"; NULL
 *          for a value outside the enum. */
OCLCONV_API const char *oclconv_method_name(oclconv_method m);

/* Per-call options.  Initialise with oclconv_options_init(), then set fields:
 * the struct may grow at its end, and `size` tells the library which fields
 * a program built against an older header knows about. */
typedef struct {
    size_t size;            /* sizeof(oclconv_options); set by _init */
    oclconv_border border;  /* default OCLCONV_BORDER_CLAMP */
    float border_value;     /* the value outside the image for CONSTANT */
    oclconv_method method;  /* default OCLCONV_METHOD_AUTO */
    float scale;            /* out = scale * sum + delta; default 1 */
    float delta;            /* default 0 */
    size_t max_device_bytes; /* the device memory a call may use for its
                                buffers; 0 (default): OCLCONV_DEVICE_BYTES
                                (bytes, or with a K, M or G suffix), else
                                half the device's memory.  An image past it
                                is filtered in strips of rows.  On a
                                context over several devices each device
                                has this much, or OCLCONV_DEVICE_BYTES's
                                k-th entry of a list ("1G,512M"). */
} oclconv_options;

/*! oclconv_options_init() :
 *  Sets every field to its default: border CLAMP, border_value 0, method AUTO,
 *  scale 1, delta 0.  `opt` must not be NULL. */
OCLCONV_API void oclconv_options_init(oclconv_options *opt);

/* ====== Context ====================================================== */
typedef struct oclconv_context oclconv_context;

/*! oclconv_create() :
 *  Makes a context (an OpenCL context, an in-order queue and a program
 *  cache) on one device.  `device_spec` selects it; NULL means the value of
 *  the environment variable OCLCONV_DEVICE, and when that is unset or empty
 *  the first GPU, else the first device of any type.  Spec grammar:
 *    gpu | cpu | accelerator     first device of that type
 *    N                           the N-th device (0-based) of the listing
 *    text                        first device whose name, platform name or
 *                                platform vendor contains `text`
 *                                (case-insensitive): "nvidia", "pocl"
 *    platform:type:device        OpenCV's form: platform name or vendor
 *                                substring (empty = any), type GPU/CPU/ACCELERATOR
 *                                (empty = any), device name substring or
 *                                index among the matches (empty = first)
 *  and for a context over several devices:
 *    *                           every device of the listing
 *    gpu* | cpu* | accelerator*  every device of that type
 *    spec,spec,...               the devices those specs name ("0,1",
 *                                "nvidia,pocl"), each once
 *  On such a context oclconv_apply() and oclconv_apply_region() split an
 *  image of 65536 pixels or more into shares of rows, one a device, run
 *  side by side, each share sized from its device's rate on the calls
 *  before (equal shares at first); each device reads its share's halo rows
 *  from the caller's memory, so the result is that of one device (each
 *  device's planner picks its own path: integer results are the same to
 *  the bit where the paths are).  If a device fails, the status is its
 *  failure, the message names the device and its rows, and the rows of the
 *  other devices may hold their results.  Smaller images, oclconv_apply_cl()
 *  and the oclconv_cl_*() getters use the first device.
 *  A spec that matches nothing is OCLCONV_E_NO_DEVICE, never a fallback; the
 *  message lists the devices that exist.  Where drivers are installed but
 *  none loads (a process memory limit too low for a driver and its
 *  compiler, which need hundreds of MiB of address space), the message
 *  says so and names the limit.
 *  @return OCLCONV_OK and *out set; on failure *out is NULL and
 *          oclconv_errmsg(NULL) tells why. */
OCLCONV_API oclconv_status oclconv_create(const char *device_spec, oclconv_context **out);

/*! oclconv_create_from_cl() :
 *  Makes a context on the application's own OpenCL objects.  `device` must
 *  be one of `context`'s devices, and `queue` (NULL: the library creates
 *  one) a queue of `context` on `device`, in-order; else
 *  OCLCONV_E_INVALID_ARG at once, naming what does not belong.  The
 *  library retains what it is given and releases it in oclconv_destroy(). */
OCLCONV_API oclconv_status oclconv_create_from_cl(cl_context context, cl_device_id device,
                                                  cl_command_queue queue,
                                                  oclconv_context **out);

/*! oclconv_destroy() : releases everything the context holds.  NULL is fine. */
OCLCONV_API void oclconv_destroy(oclconv_context *ctx);

/*! oclconv_device_name() :
 *  @return the device's name, owned by the context; "" for NULL. */
OCLCONV_API const char *oclconv_device_name(const oclconv_context *ctx);

/*! oclconv_errmsg() :
 *  @return the detail of the context's last failure (the failing cl* call
 *          and its error name, the compiler's build log, the argument that
 *          was wrong), "" when there was none.  With NULL: the detail of the
 *          calling thread's last failure that had no context to hold it
 *          (oclconv_create(), the filter constructors, oclconv_list_devices()).
 *          The text is owned by the library and valid until the next call on
 *          the same context (or, for NULL, in the same thread). */
OCLCONV_API const char *oclconv_errmsg(const oclconv_context *ctx);

/*! oclconv_list_devices() :
 *  Writes one line per OpenCL device into `buf` ("N: device name [TYPE] on
 *  platform name"), NUL-terminated and truncated to `size` bytes.  The index
 *  N is the one the device spec accepts.
 *  @return OCLCONV_OK, or OCLCONV_E_NO_DEVICE when no platform exists. */
OCLCONV_API oclconv_status oclconv_list_devices(char *buf, size_t size);

/*! oclconv_device_count() :
 *  @return the devices the context spans (1 unless its spec named several);
 *          0 for NULL.  oclconv_device_name() then joins their names with
 *          " + ". */
OCLCONV_API int oclconv_device_count(const oclconv_context *ctx);

/*! oclconv_last_method() :
 *  @return the path that ran in the context's last successful
 *          oclconv_apply(); OCLCONV_METHOD_AUTO before the first. */
OCLCONV_API oclconv_method oclconv_last_method(const oclconv_context *ctx);

/* AUTO's calibration: the first time a class of jobs comes (types,
 * channels, filter kind, radius band, size band, border group), AUTO times
 * the paths that can run it on a small image, keeps the rules' path unless
 * another takes at most 92 % of its time, and stores the choice in a file a
 * device (platform, device, driver, library version and kernels) in
 * OCLCONV_CALIBRATION_DIR, else $XDG_CACHE_HOME/oclconv, else
 * ~/.cache/oclconv, for later processes.  A corrupt, truncated or foreign
 * file is ignored and rewritten, whole (through a renamed temporary); an
 * unwritable folder keeps choices in the context.  Modes: ON (default), OFF
 * (rules alone), STORED (stored choices, never a measurement: no call
 * waits), FRESH (measure each class again once); OCLCONV_CALIBRATE (on,
 * off, stored, fresh) sets the default.  Every path gives the same answer. */
typedef enum {
    OCLCONV_CALIBRATE_DEFAULT, /* OCLCONV_CALIBRATE's value, else ON */
    OCLCONV_CALIBRATE_ON,
    OCLCONV_CALIBRATE_OFF,
    OCLCONV_CALIBRATE_STORED,
    OCLCONV_CALIBRATE_FRESH
} oclconv_calibration;

/*! oclconv_set_calibration() : the context's mode and folder (NULL:
 *  OCLCONV_CALIBRATION_DIR's, else the cache's), over the environment's. */
OCLCONV_API oclconv_status oclconv_set_calibration(oclconv_context *ctx, oclconv_calibration mode,
                                                   const char *folder);

typedef enum {
    OCLCONV_CHOICE_NONE,    /* no successful call yet */
    OCLCONV_CHOICE_CALLER,  /* the options or OCLCONV_METHOD named the path */
    OCLCONV_CHOICE_RULE,    /* AUTO, by the rules */
    OCLCONV_CHOICE_MEASURED /* AUTO, by a calibration's measurement */
} oclconv_choice;

/*! oclconv_last_choice() : how the last successful call's path was chosen. */
OCLCONV_API oclconv_choice oclconv_last_choice(const oclconv_context *ctx);

/*! oclconv_programs_built() :
 *  @return how many OpenCL programs the context has compiled so far.  A new
 *          filter of a shape and format already used compiles nothing. */
OCLCONV_API size_t oclconv_programs_built(const oclconv_context *ctx);

/*! oclconv_last_kernel_seconds() :
 *  @return the device time the kernels of the context's last successful
 *          oclconv_apply() took (from OpenCL profiling events), without the
 *          host transfers; 0 when the queue cannot profile (an application
 *          queue created without CL_QUEUE_PROFILING_ENABLE).  On a context
 *          over several devices, the longest device's, as they run side by
 *          side. */
OCLCONV_API double oclconv_last_kernel_seconds(const oclconv_context *ctx);

/*! oclconv_cl_context(), oclconv_cl_device(), oclconv_cl_queue() :
 *  The OpenCL objects the context uses, still owned by it (retain them to
 *  keep them longer), for applications that mix their own OpenCL work in. */
OCLCONV_API cl_context oclconv_cl_context(const oclconv_context *ctx);
OCLCONV_API cl_device_id oclconv_cl_device(const oclconv_context *ctx);
OCLCONV_API cl_command_queue oclconv_cl_queue(const oclconv_context *ctx);

/* ====== Filters ====================================================== */
/* A filter is an immutable set of weights with an odd width and height,
 * anchored at its centre.  oclconv_apply() computes a correlation (the filter
 * is not flipped):  out(x,y) = scale * sum_j sum_i w[j][i] in(x+i-rx, y+j-ry)
 * + delta, with rx = width/2, ry = height/2.  Integer outputs are rounded half
 * to even and saturated; float outputs are not rounded. */
typedef struct oclconv_filter oclconv_filter;

/*! oclconv_filter_create() :
 *  `weights` holds height rows of width values; it is copied.  Width and
 *  height must be odd and positive, at most 4095 each and 2^22 taps in all;
 *  weights must be finite.  A filter of rank one is
 *  detected and may run as a separable filter, through factors that
 *  rebuild its weights exactly where its largest tap or its largest
 *  power-of-two tap gives them; for 8- and 16-bit outputs a filter whose
 *  weights are all multiples of 2^-16 runs separably only then (its
 *  results fall on exact halves, which inexact factors would round off).
 *  @return OCLCONV_OK and *out set, or OCLCONV_E_INVALID_ARG / _E_NOMEM with
 *          *out NULL and the reason in oclconv_errmsg(NULL). */
OCLCONV_API oclconv_status oclconv_filter_create(int width, int height, const float *weights,
                                                 oclconv_filter **out);

/*! oclconv_filter_separable() :
 *  The filter w[j][i] = col[j] * row[i]; `row` has `width` taps, `col` has
 *  `height` taps, both odd counts.  Same returns as oclconv_filter_create(). */
OCLCONV_API oclconv_status oclconv_filter_separable(int width, const float *row, int height,
                                                    const float *col, oclconv_filter **out);

/*! oclconv_filter_box() : (2rx+1) x (2ry+1) taps of 1/((2rx+1)(2ry+1)).
 *  rx, ry >= 0. */
OCLCONV_API oclconv_status oclconv_filter_box(int rx, int ry, oclconv_filter **out);

/*! oclconv_filter_gaussian() :
 *  Separable Gaussian, taps exp(-i^2 / (2 sigma^2)) computed in double and
 *  normalised so that each direction sums to 1.  sigma_y <= 0 means
 *  sigma_y = sigma_x; a radius of 0 means ceil(3 sigma) in that direction,
 *  which must be at most 2047 (sigma up to 682.33; past it
 *  OCLCONV_E_INVALID_ARG names the sigma: give a radius instead).  With a
 *  radius given, any finite sigma works: a huge one gives nearly a box.
 *  sigma_x must be > 0 and finite; a sigma so small that 2 sigma^2 is 0 in
 *  double (below 1.5e-162) gives the identity (the centre tap 1, the
 *  others 0), as the formula does in the limit.  The radii together take
 *  at most 2^22 taps, as oclconv_filter_create(). */
OCLCONV_API oclconv_status oclconv_filter_gaussian(double sigma_x, double sigma_y, int rx, int ry,
                                                   oclconv_filter **out);

/*! oclconv_filter_sharpen() :
 *  3x3  [0 -a 0; -a 1+4a -a; 0 -a 0]  with a = amount (sums to 1). */
OCLCONV_API oclconv_status oclconv_filter_sharpen(float amount, oclconv_filter **out);

/*! oclconv_filter_emboss() : 3x3 [-2 -1 0; -1 1 1; 0 1 2] (sums to 1). */
OCLCONV_API oclconv_status oclconv_filter_emboss(oclconv_filter **out);

/*! oclconv_filter_laplacian() : 3x3 [0 1 0; 1 -4 1; 0 1 0] (sums to 0: use a
 *  float destination or a delta, and not the NORMALIZE border). */
OCLCONV_API oclconv_status oclconv_filter_laplacian(oclconv_filter **out);

/*! oclconv_filter_sobel_x() : 3x3 [-1 0 1; -2 0 2; -1 0 1] (d/dx; sums to 0). */
OCLCONV_API oclconv_status oclconv_filter_sobel_x(oclconv_filter **out);

/*! oclconv_filter_sobel_y() : 3x3 [-1 -2 -1; 0 0 0; 1 2 1] (d/dy; sums to 0). */
OCLCONV_API oclconv_status oclconv_filter_sobel_y(oclconv_filter **out);

/*! oclconv_filter_size() : width and height in taps; either pointer may be NULL. */
OCLCONV_API void oclconv_filter_size(const oclconv_filter *f, int *width, int *height);

/*! oclconv_filter_weights() :
 *  @return the width*height weights the filter stands for, row by row, owned
 *          by the filter; NULL for NULL.  They are doubles because a
 *          separable filter's taps are the exact products col[j] * row[i]. */
OCLCONV_API const double *oclconv_filter_weights(const oclconv_filter *f);

/*! oclconv_filter_destroy() : NULL is fine. */
OCLCONV_API void oclconv_filter_destroy(oclconv_filter *f);

/* ====== Apply ======================================================== */
/*! oclconv_apply() :
 *  Filters `src` into `dst` on the context's device and returns when `dst`
 *  holds the result.  Both images have the same width, height and channel
 *  count; their types may differ (u8 in, f32 out for derivatives).  `src`
 *  and `dst` may share memory (in place): the result is as if they did not.
 *  `opt` NULL means the defaults of oclconv_options_init().
 *  Every argument is checked before any OpenCL work; on any failure `dst` is
 *  untouched and the reason is in oclconv_errmsg(ctx), except where the
 *  call runs in parts of rows (strips of an image larger than the device
 *  memory it may use, oclconv_options.max_device_bytes; bands on a GPU)
 *  and the device fails after a part was read back: the rows done hold
 *  their results, the others what they held.
 *  Sums: integer results equal the exact result rounded half to even,
 *  except within 1e-3 of a tie; float results lie within 1e-5 of the size
 *  of their terms.  The planner bounds each path's rounding and range to
 *  keep this: where float sums could pass a float's range (the largest
 *  value of an integer image, or the CONSTANT border value, times the sum
 *  of the weights' magnitudes, past 2^126) they run in double; where even
 *  double's rounding could move an integer result by 1e-3 (a border value
 *  of 1e38 beside 8-bit values under weights of both signs, whose terms
 *  cancel far above the result), no path keeps the result exact and the
 *  call is OCLCONV_E_UNSUPPORTED, as is a sum past a float's range on a
 *  device without double.  A float image's own values are known only as
 *  the kernels run: the box path sums them in double, and the others scale
 *  the weights (and, where equal taps add values first, the values) by a
 *  power of two that keeps every partial sum of values up to 3.4e38 within
 *  a float's range, and the scale back by its inverse, which changes no
 *  result but those of values near a float's smallest (below 2^-126 times
 *  twice the weights' magnitudes' sum, where a float loses digits anyway):
 *  3x3 ones over values of 3e38, scale 1/9, give 3e38.  Only where that
 *  power of two would take a weight below 2^-126, or the scale past
 *  3.4e38, does such a window give an infinity or NaN.
 *  @return OCLCONV_OK, or
 *    OCLCONV_E_INVALID_ARG  a NULL, size, stride, enum or filter problem;
 *    OCLCONV_E_UNSUPPORTED  the method cannot run on this device or image
 *                           (any method: more than 2^30 rows, or values
 *                           a row), or no accumulator keeps the sums
 *                           exact (see Sums above);
 *    OCLCONV_E_NOMEM        host or device memory could not be had.  On
 *                           a device that works in host memory (PoCL,
 *                           integrated GPUs) the library's buffers and
 *                           images are allocated as they are made
 *                           (CL_MEM_ALLOC_HOST_PTR), so a shortage, a
 *                           process limit set with `ulimit -v` among
 *                           them, fails the call with this status and a
 *                           message naming the limit; PoCL would otherwise
 *                           allocate at the first command and abort the
 *                           process when it could not;
 *    OCLCONV_E_BUILD        a kernel failed to compile (log in errmsg), or
 *                           with OCLCONV_KERNEL_DIR set (the kernels'
 *                           sources from that folder rather than the copies
 *                           built in), a source there is missing or not a
 *                           regular file of at most 4 MiB (FIFOs and
 *                           devices are refused, never waited on or read);
 *    OCLCONV_E_OPENCL       another OpenCL call failed. */
OCLCONV_API oclconv_status oclconv_apply(oclconv_context *ctx, const oclconv_image *src,
                                         oclconv_image *dst, const oclconv_filter *f,
                                         const oclconv_options *opt);

/* ====== Batches ======================================================= */
/*! oclconv_apply_batch() :
 *  Filters n images with one filter and one set of options: src[i] into
 *  dst[i], each pair as oclconv_apply() would (pairs may differ in size,
 *  type and channels).  Each program is built once; runs of same-shaped
 *  images share a buffer and a launch (buffer, tiled, separable paths).  On
 *  a device with memory of its own uploads, kernels and read-backs overlap
 *  (two queues, a ring of buffer sets; OCLCONV_BANDS past 1: any device),
 *  from pageable memory through pinned buffers the context keeps, copied
 *  on threads; in host memory an image is filtered where it lies unless
 *  small and stacked.  Several devices share the images by their rates.
 *  Every pair is checked before any work (and planned, on a context of one
 *  device): a bad one (NULL data, a size mismatch, an unknown type, a path
 *  that cannot run it) fails the call, *failed (when not NULL) set to its
 *  index, the message starting "image i: ", and no destination touched.
 *  If a device fails part-way, *failed is the image whose work failed: the
 *  images its device finished before it hold their results, the others
 *  theirs or what they held.  n = 0 does nothing.  @return oclconv_apply()'s. */
OCLCONV_API oclconv_status oclconv_apply_batch(oclconv_context *ctx, size_t n,
                                               const oclconv_image *src, oclconv_image *dst,
                                               const oclconv_filter *f,
                                               const oclconv_options *opt, size_t *failed);

/* ====== Regions of a larger image ==================================== */
/* Where a call's images lie in a larger image, the whole: its size, and
 * the positions in it of the source's and the destination's first pixels. */
typedef struct {
    int width, height; /* the whole image */
    int src_x, src_y;  /* the source's first pixel in the whole image */
    int dst_x, dst_y;  /* the destination's first pixel in the whole image */
} oclconv_region;

/*! oclconv_apply_region() :
 *  Filters the rectangle of a whole image that `dst` stands for, at
 *  (dst_x, dst_y): the result is that rectangle of oclconv_apply() on the
 *  whole image (OpenCV's ROI without BORDER_ISOLATED).  Pixels outside the
 *  rectangle but inside the whole image are real data, read from `src`; the
 *  border mode acts at the whole image's edges only.
 *  What the caller supplies: `src` is the rectangle of the whole image at
 *  (src_x, src_y), of its own width and height (a tile with its halo, a
 *  strip, or all of it).  It must hold every pixel of the whole image that
 *  the destination's windows read: the destination's rectangle grown by rx
 *  = filter width / 2 columns and ry = filter height / 2 rows on each side,
 *  cut to the whole image.  With the WRAP border the grown rectangle does
 *  not stop at an edge but goes on at the far side, so a source that wraps
 *  must hold those rows or columns too; one that spans the whole width (or
 *  height) always does.  Both rectangles lie inside the whole image; a
 *  missing pixel, or a rectangle outside, is OCLCONV_E_INVALID_ARG naming
 *  the rows and columns needed, before any work.
 *  Types, channels, options and statuses are those of oclconv_apply();
 *  `src` and `dst` may share memory (the source is then copied first, in
 *  host memory, where the call runs in more than one part).  Results agree
 *  with the whole image's within the contract (the planner may choose
 *  another path for another size; with the same path, integer results are
 *  the same to the bit).  The call may run in parts of rows (strips, see
 *  oclconv_options.max_device_bytes): if it fails after a part has been
 *  read back, the rows of `dst` already done hold their results and the
 *  others what they held; a failure found before any work (every argument
 *  error, a strip that cannot fit) leaves `dst` untouched. */
OCLCONV_API oclconv_status oclconv_apply_region(oclconv_context *ctx, const oclconv_image *src,
                                                const oclconv_region *region, oclconv_image *dst,
                                                const oclconv_filter *f,
                                                const oclconv_options *opt);

/* ====== Host memory the device reaches fastest ======================== */
/*! oclconv_host_alloc() :
 *  `bytes` of host memory that the context's device transfers at full
 *  speed: page-locked (pinned) memory where the driver offers it, so that
 *  images in it travel to and from a discrete GPU by DMA without a staging
 *  copy.  Use it for oclconv_image data like any other memory; release it
 *  with oclconv_host_free() on the same context, before
 *  oclconv_destroy() (which frees what is left).  On a device with memory
 *  of its own, oclconv_apply() runs images of 8 MB or more in bands of
 *  rows whose copies overlap: from here, or from other memory through
 *  pinned buffers the context keeps, copied on threads it starts at its
 *  first such call and ends in oclconv_destroy() (OCLCONV_STAGE=0: not).
 *  OCLCONV_BANDS=N asks for N bands (at most 8; 1: none).
 *  @return OCLCONV_OK with *out set; OCLCONV_E_INVALID_ARG for NULL
 *          arguments or 0 bytes; OCLCONV_E_NOMEM when it cannot be had. */
OCLCONV_API oclconv_status oclconv_host_alloc(oclconv_context *ctx, size_t bytes, void **out);
/*! oclconv_host_free() :
 *  Releases memory from oclconv_host_alloc() on this context; NULL does
 *  nothing.  @return OCLCONV_OK, or OCLCONV_E_INVALID_ARG for a pointer
 *  this context did not allocate (nothing is freed). */
OCLCONV_API oclconv_status oclconv_host_free(oclconv_context *ctx, void *p);

#ifdef __cplusplus
}
#endif

/* Images the application holds in OpenCL buffers: oclconv_apply_cl(). */
#include "oclconv_cl.h"

#endif /* OCLCONV_H */
