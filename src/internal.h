/*
 * Private to the library: the objects behind the opaque handles and the
 * functions the src/ modules call on each other (prefix oclconv__).  What
 * only a few files share has a header of its own: program.h, path_rules.h,
 * host_copy.h, region.h, fft.h, calibration.h.
 */
#ifndef OCLCONV_INTERNAL_H
#define OCLCONV_INTERNAL_H

#include "oclconv.h"

#include <stdint.h>

#if defined(__GNUC__)
#define OCLCONV_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define OCLCONV_PRINTF(f, a)
#endif

#define OCLCONV_MAX_TAPS_1D 4095
#define OCLCONV_MAX_TAPS (1 << 22)

struct oclconv_filter {
    int width, height;
    double *weights;         /* height rows of width taps: what the filter means */
    float *row, *col;        /* set when the filter is (nearly) col[j] * row[i] */
    double separable_error;  /* sum of |w[j][i] - col[j] * row[i]|, 0 when exact */
    double sum;              /* sum of the weights */
    double abs_sum;          /* sum of their magnitudes */
    double min_magnitude;    /* the smallest non-zero |weight|, 0 if none */
    int has_negative;
    int runs;                /* runs of equal non-zero taps along its rows */
    int nonzero;             /* its non-zero taps */
    int few_bits;            /* every weight a multiple of 2^-16: integer results on
                              * exact halves are common, and must round as the
                              * reference does */
};

/* What the device reported once, at context creation; the planner decides
 * from these and never from the device's name. */
typedef struct {
    cl_device_type type;
    int image_support;
    int fp64;
    size_t max_work_group;
    size_t max_work_item[3];
    cl_ulong local_mem;
    cl_ulong max_alloc;
    cl_ulong global_mem;
    cl_ulong max_constant;
    size_t max_param; /* bytes of a kernel's arguments */
    size_t image2d_max_width, image2d_max_height;
    cl_uint compute_units;
    int unified_memory; /* the device works on host memory directly */
    int own_builtins;   /* PoCL's compiler: programs declare their built-ins (program.c) */
} oclconv__device_facts;

typedef struct oclconv__program_cache oclconv__program_cache;

/* The most devices a context spans (devices.c). */
#define OCLCONV_MAX_DEVICES 16
/* The most buffer sets a call on host images runs its parts through (region.c). */
#define OCLCONV_MAX_BANDS 8
/* Scratch slots: 0 the source, 1 the destination, 2 a path's intermediate,
 * 3 the float box's check of its sums, then band k's source and
 * destination. */
#define OCLCONV_BAND_SLOT(k) (4 + 2 * (k))
#define OCLCONV_SCRATCH_SLOTS OCLCONV_BAND_SLOT(OCLCONV_MAX_BANDS)
/* The most kernels one call enqueues (the float box: check, two running-sum
 * passes, two walks), in each band. */
#define OCLCONV_MAX_KERNELS 5
#define OCLCONV_MAX_EVENTS (OCLCONV_MAX_KERNELS * OCLCONV_MAX_BANDS)
/* Weight uploads the context keeps for reuse, and the largest it keeps. */
#define OCLCONV_WEIGHT_SETS 8
#define OCLCONV_WEIGHT_SET_BYTES 65536

/* Filter spectra the FFT path made lately, a tile size each (path_fft.c). */
#define OCLCONV_FFT_SPECTRA 4
struct oclconv__fft_spectrum {
    double *weights; /* the filter's, to know it again */
    int width, height, tile;
    cl_mem mem;
};

struct oclconv_context {
    cl_context cl;
    cl_device_id device;
    cl_command_queue queue;
    char name[256];
    oclconv__device_facts facts;
    cl_sampler sampler_edge; /* CLAMP_TO_EDGE, nearest, unnormalised */
    cl_sampler sampler_zero; /* CLAMP (border colour 0), nearest, unnormalised */
    oclconv__program_cache *programs;
    size_t programs_built;
    oclconv_method last_method;
    oclconv_choice last_choice;
    oclconv_calibration calib_mode;       /* oclconv_set_calibration()'s */
    char *calib_dir;                      /* its folder, or NULL */
    struct oclconv__calibration *calib;   /* the device's measured choices */
    cl_command_queue upload_queue; /* parts' uploads beside the queue's work (region.c) */
    cl_event kernel_events[OCLCONV_MAX_EVENTS]; /* the kernels of the call under way */
    int kernel_event_count;
    const cl_event *wait_list; /* what the call's first command waits for */
    cl_uint wait_count;
    double last_kernel_seconds;
    double banked_seconds; /* of the call's kernels whose events are gone */
    cl_mem scratch[OCLCONV_SCRATCH_SLOTS]; /* device buffers reused between calls */
    size_t scratch_size[OCLCONV_SCRATCH_SLOTS];
    void *stage[2 * OCLCONV_MAX_BANDS];    /* pinned host buffers of a staged batch's */
    size_t stage_size[2 * OCLCONV_MAX_BANDS]; /* sets, source and results (pipeline.c) */
    struct oclconv__copier *copier;        /* their copies' threads, started once */
    struct {                               /* weights uploaded lately, reused (transfer.c) */
        void *values;
        size_t bytes;
        cl_mem mem;
    } weights[OCLCONV_WEIGHT_SETS];
    int weights_next;
    struct oclconv__host_block *host_blocks; /* oclconv_host_alloc()'s, a list */
    struct oclconv__fft_plan *fft_plans;     /* the FFT path's, a list (fft.c) */
    struct oclconv__fft_spectrum fft_spectra[OCLCONV_FFT_SPECTRA];
    int fft_spectra_next;
    char *errmsg;
    size_t errmsg_cap;
    /* A context over several devices: one context each for the others,
     * and every device's rate (rows a second, measured; 0 before) that
     * sizes its share of an image (devices.c). */
    struct oclconv_context *peers[OCLCONV_MAX_DEVICES - 1];
    int peer_count;
    double rate[OCLCONV_MAX_DEVICES];
    double batch_rate[OCLCONV_MAX_DEVICES]; /* images a second (batch.c) */
    int device_index; /* a peer's place among the devices (0: the first) */
    const struct oclconv_context *first; /* a peer's first device's context */
};

/* ---- error.c ----------------------------------------------------------- */
/* Records the detail of a failure in ctx (or, for NULL, in the calling
 * thread) and returns s. */
oclconv_status oclconv__fail(oclconv_context *ctx, oclconv_status s, const char *fmt, ...)
    OCLCONV_PRINTF(3, 4);
/* The status for a failed cl* call, with "call: CL_NAME (code)" as detail. */
oclconv_status oclconv__cl_fail(oclconv_context *ctx, cl_int err, const char *call);
const char *oclconv__cl_error_name(cl_int err);
/* "; the process's address space (...) is limited to N MiB" where a
 * resource limit caps the process's memory, else "". */
void oclconv__memory_limit(char *buf, size_t size);
void oclconv__clear_error(oclconv_context *ctx);
/* Appends text to ctx's message (the build log after the headline). */
void oclconv__append_error(oclconv_context *ctx, const char *text);

/* ---- host_memory.c ------------------------------------------------------ */
/* Whether bytes from p lie in one block from oclconv_host_alloc(). */
int oclconv__host_pinned(const oclconv_context *ctx, const void *p, size_t bytes);
/* Frees every block oclconv_host_alloc() left (oclconv_destroy()). */
void oclconv__host_free_all(oclconv_context *ctx);

/* ---- device_spec.c ------------------------------------------------------ */
/* Finds the devices a spec names (see oclconv_create()): one, or several
 * for "*", "gpu*" and lists apart by commas; NULL or "" picks the first
 * GPU, else the first device.  *count is how many, at most `most`. */
oclconv_status oclconv__find_devices(const char *spec, cl_platform_id *platforms,
                                     cl_device_id *devices, int most, int *count);

/* ---- image.c ------------------------------------------------------------- */
size_t oclconv__type_size(oclconv_type t);
/* Bytes of one packed row; 0 when it overflows. */
size_t oclconv__packed_row(const oclconv_image *img);
size_t oclconv__row_stride(const oclconv_image *img);
oclconv_status oclconv__check_image(oclconv_context *ctx, const oclconv_image *img,
                                    const char *what);

/* ---- plan.c --------------------------------------------------------------- */
typedef struct {
    const oclconv_image *src;
    oclconv_image *dst;
    const oclconv_filter *filter;
    oclconv_options opt;
    oclconv_method method; /* the path chosen */
    oclconv_choice choice; /* and how */
    int acc_double;        /* accumulate in double to stay within the tolerance */
    int row_sums;          /* 2-D direct sums: each tap row's in float, the rows' in double */
    int vec;               /* values a work-item computes (buffer, separable, box) */
    int local[2];          /* work-group size; 0 lets the runtime choose */
    int tile[2];           /* box tiles: the columns of a line, the rows scanned
                              at once */
    int cpu_shapes;        /* kernel shapes for a CPU, else for a GPU */
    int in_bands;          /* a host call whose copies overlap its kernels in bands
                              (src/region.c): AUTO measures such calls apart */
    int band;              /* box, fused separable: rows a work-item (box tiles: a
                              work-group) goes down */
    int chunks;            /* buffer: vectors a work-item makes side by side */
    int fused;             /* separable, box: both passes in one kernel (FUSED_*) */
    int sum_int;           /* box: exact integer sums */
    int radius_args;       /* box bands: the radii are kernel arguments, not in the program */
    int pack16;            /* box tiles: two 8-bit channels' sums to a uint */
    int taps_by_value;     /* the kernel takes its taps as arguments, not a buffer */
    int equal_row, equal_col; /* separable tiles: a pass whose taps are all equal
                                 adds values, then weighs the sums; rows 2: from
                                 the sums of chunks (cl/separable.cl) */
    int chunk_bufs;        /* their buffers: 2 where they fit, else 1 */
    int hor_pad;           /* separable tiles: their rows in local memory a vector
                              longer than the tile (cl/separable.cl HOR_W) */
    cl_ulong local_mem;    /* what GPU shapes plan within (oclconv__plan) */
    int shift[2];          /* float images: weights (separable: the row's, then the
                              column's) times 2^-shift, the scale times 2^+shift */
    int value_shift;       /* and values that are added before they are weighted
                              (equal_row) times 2^-value_shift (oclconv__range_shifts) */
    int stack;             /* images packed one after the other in the buffers, the
                              launches' third dimension (oclconv__stackable); 0: one */
} oclconv__job;

/* How a two-pass path runs: through a scratch image, or fused down bands
 * of rows in private memory (CPUs), or over tiles in local memory (GPUs). */
/* The most rows a separable filter's column may have for the CPU bands
 * (cl/separable_cpu.cl), whose ring of row passes grows with it. */
#define OCLCONV_BAND_TAPS 65
#define OCLCONV_FUSED_NO 0
#define OCLCONV_FUSED_BANDS 1
#define OCLCONV_FUSED_TILES 2
#define OCLCONV_FUSED_QUADS 3 /* boxes of 8-bit RGBA (cl/box.cl box_quads) */
/* Separable tiles: this many work-items, each VEC values by band rows,
 * each row's window of taps at most OCLCONV_ROW_WINDOW values (registers;
 * the kernels' limit, -DROW_WINDOW), and for tiles, at most that many
 * floats' room. */
#define OCLCONV_TILE_ITEMS 256
#define OCLCONV_ROW_WINDOW 256
/* The local memory GPU shapes plan within on a CPU device: what NVIDIA's
 * OpenCL, and most GPUs', lend a work-group. */
#define OCLCONV_GPU_LOCAL_MEM 49152
/* Two separable passes through scratch (cl/separable.cl): pixels of a row
 * a work-item makes in the row pass, rows in the column pass. */
#ifndef OCLCONV_SLIDE_X
#define OCLCONV_SLIDE_X 8
#endif
#ifndef OCLCONV_SLIDE_Y
#define OCLCONV_SLIDE_Y 8
#endif
/* Box row pass: the work-items of a group, one pixel of a row each. */
#define OCLCONV_BOX_SEGMENT 256
/* GPU boxes of 8-bit RGBA in quads (src/plan.c oclconv__quads_fit()): a group's
 * work-items across and down, and the rows each makes. */
#define OCLCONV_QUAD_W 8
#define OCLCONV_QUAD_H 16
#define OCLCONV_QUAD_ROWS 4
/* Float boxes' walks (cl/box.cl): the pixels or rows a work-item walks. */
#define OCLCONV_WALK_BAND 64
/* GPUs: the most sums a work-item holds of a walk's block in local memory. */
#define OCLCONV_WALK_MOST 24

oclconv_status oclconv__plan(oclconv_context *ctx, oclconv__job *job);
/* The method oclconv_method_name() names s; 0 for none. */
int oclconv__parse_method(const char *s, oclconv_method *out);
/* Values in a scratch row: a row's values rounded up to whole vectors. */
size_t oclconv__vec_pitch(const oclconv__job *job);

/* ---- precision.c ---------------------------------------------------------- */
/* Sets job->acc_double where float sums could miss the contract's
 * exactness on the planned path; refuses what no accumulator keeps. */
oclconv_status oclconv__precision(oclconv_context *ctx, oclconv__job *job);
/* Float images' values are known only as the kernels run: sets the
 * powers of two (job->shift, job->value_shift) that keep every partial sum
 * of values up to FLT_MAX within a float's range, where they scale the
 * weights and values exactly; 0 where no shift is needed or exact. */
void oclconv__range_shifts(oclconv__job *job);
/* The weights of a pass and the scale as the kernels take them. */
double oclconv__shifted_scale(const oclconv__job *job);
/* An exact sum of finite doubles, rounded once when read: terms of 1e38
 * that cancel leave the small ones intact, in any order. */
#define OCLCONV_SUM_PARTS 48
typedef struct {
    double part[OCLCONV_SUM_PARTS];
    int n;
} oclconv__sum;
void oclconv__sum_add(oclconv__sum *s, double x);
double oclconv__sum_value(const oclconv__sum *s);
/* Largest magnitude a source value (or the constant border) can have. */
double oclconv__max_input(const oclconv__job *job);
/* Whether NORMALIZE's rescale of f stays well within a float's range. */
int oclconv__float_rescale_finite(const oclconv_filter *f);
/* Whether n taps are all the same (a box's). */
int oclconv__taps_equal(const float *w, int n);
/* Whether the CPU bands add a separable pass's taps w[i] and w[n - 1 - i]
 * in pairs: integer sources, symmetric taps (src/precision.c). */
int oclconv__paired_pass(const oclconv__job *job, const float *w, int n);

/* ---- calibrate.c ----------------------------------------------------------- */
/* AUTO's measured path for the job's class (job->method holds the rules'
 * choice), measured now where nothing is stored and the mode allows; *m
 * OCLCONV_METHOD_AUTO where there is none.  Fails only for a bad
 * OCLCONV_CALIBRATE. */
oclconv_status oclconv__calibrated(oclconv_context *ctx, const oclconv__job *job,
                                   oclconv_method *m);
void oclconv__calibration_free(oclconv_context *ctx);

/* ---- program.c ------------------------------------------------------------ */
typedef struct {
    const char *name;
    const char *text;
} oclconv__cl_source;

/* CPU shapes on a CPU device build one program for the borders that fold
 * the image onto itself (cl/common.cl BORDER_FOLDS), the border plus one
 * the launch's global offset in a third dimension (oclconv__run_2d_local()):
 * the border for those, -1 for the others, for GPU shapes and other devices.  On
 * NVIDIA's OpenCL the CPU shapes (OCLCONV_TUNE=cpu) read wrong values past
 * the edges with it, on every border and path; the cause is not found (a
 * lone kernel there reads get_global_offset(2) right). */
#define OCLCONV_BORDER_FOLDS 7
int oclconv__fold(const oclconv_context *ctx, const oclconv__job *job);
/* Writes the -D options every kernel understands (cl/common.cl) into buf. */
void oclconv__common_options(oclconv_context *ctx, const oclconv__job *job, char *buf,
                             size_t size);
/* Returns the kernel `kernel` of cl/common.cl + cl/<source>.cl built with
 * `options`, from the context's cache or freshly built; `source` may name
 * several files apart by spaces, taken in that order ("box box_gpu"). */
oclconv_status oclconv__get_kernel(oclconv_context *ctx, const char *source, const char *kernel,
                                   const char *options, cl_kernel *out);
void oclconv__program_cache_free(oclconv__program_cache *cache);
/* The kernels of a two-pass path in cl/<source>.cl: k[0] = <source>_fused
 * or <source>_tile as `fused` says (OCLCONV_FUSED_*), else k[0] =
 * <source>_rows and k[1] = <source>_cols; <source> is the first file named. */
oclconv_status oclconv__pass_kernels(oclconv_context *ctx, const char *source, const char *options,
                                     int fused, cl_kernel k[2]);

/* ---- transfer.c ----------------------------------------------------------- */
size_t oclconv__image_bytes(const oclconv_image *img);
/* Whether two host images share any memory. */
int oclconv__overlap(const oclconv_image *a, const oclconv_image *b);
/* The bytes an image spans in host memory, from its first to its last. */
size_t oclconv__image_span(const oclconv_image *img);
/* A rectangle of bytes between a device buffer and host memory. */
typedef struct {
    cl_mem buf;
    size_t buf_pitch, buf_x; /* the buffer's row pitch; the rectangle's first byte in a row */
    int buf_row;             /* the rectangle's first row in the buffer */
    char *host;              /* its first byte in host memory */
    size_t host_pitch;
    size_t width; /* bytes a row */
    int rows;
} oclconv__rect;
/* Copies a rectangle to (to_device) or from the device on queue q after
 * *wait (when given).  With `done` the copy is left running and *done is
 * its event; else it has finished on return. */
oclconv_status oclconv__copy(oclconv_context *ctx, cl_command_queue q, const oclconv__rect *r,
                            int to_device, const cl_event *wait, cl_event *done);
/* Flags for memory the library allocates on the device: on a device that
 * works in host memory, CL_MEM_ALLOC_HOST_PTR, so that the memory is had
 * when the object is made and a shortage fails that call (PoCL otherwise
 * allocates at the first command and aborts the process when it cannot). */
cl_mem_flags oclconv__alloc_flags(const oclconv_context *ctx);
/* A device buffer of at least `bytes` from the context's scratch slot. */
oclconv_status oclconv__scratch(oclconv_context *ctx, int slot, size_t bytes, cl_mem *out);

/* The device side of a buffer path's source and destination: packed rows,
 * the caller's own memory where the device shares it with the host (the
 * source's rows where they lie, for kernels that read them so). */
typedef struct {
    cl_mem in, out;
    int in_owned, out_owned; /* made for this call (else scratch) */
    int in_pitch;            /* values from one row of `in` to the next; 0: packed */
    int out_pitch;           /* the same for `out` */
    int keep_x, keep_y;      /* where the destination lies in the image (pitched kernels) */
} oclconv__io;
/* Whether the job's kernels read a source and write a destination whose
 * rows are in_pitch and out_pitch apart, and make only the window of the
 * image that the destination is: job->dst's size at (keep_x, keep_y) (on
 * CPUs the separable bands, the buffer kernel and the box bands of integer
 * sums).  Other kernels take a destination of the source's size. */
int oclconv__reads_pitched(const oclconv__job *job);
/* What pitched kernels take of io, as their arguments: the source's and
 * the destination's row pitches, the window's first value and row, its
 * values a row and its rows. */
void oclconv__io_layout(const oclconv__job *job, const oclconv__io *io, cl_int layout[6]);
/* Sets the six layout values as k's arguments from `first` on. */
oclconv_status oclconv__layout_args(oclconv_context *ctx, cl_kernel k, cl_uint first,
                                    const cl_int layout[6]);
/* A destination without data leaves the result in a scratch buffer, io->out. */
oclconv_status oclconv__io_begin(oclconv_context *ctx, const oclconv__job *job, oclconv__io *io);
/* Brings the result to the caller's destination when `status` is OK, and
 * releases what io_begin made; returns the final status. */
oclconv_status oclconv__io_end(oclconv_context *ctx, const oclconv__job *job, oclconv__io *io,
                               oclconv_status status);

/* ---- apply.c ---------------------------------------------------------------- */
/* Checks the images, the filter and the options into job; the images'
 * sizes too where they must be the same (all but regions). */
oclconv_status oclconv__validate(oclconv_context *ctx, oclconv__job *job,
                                 const oclconv_options *opt, int same_size);
/* ---- context.c ------------------------------------------------------------ */
/* The device bytes a call may use: options.max_device_bytes, else
 * OCLCONV_DEVICE_BYTES, else half the device's memory. */
oclconv_status oclconv__device_budget(oclconv_context *ctx, const oclconv__job *job,
                                      size_t *out);

/* ---- devices.c ------------------------------------------------------------ */
/* oclconv_apply() and oclconv_apply_region() (`where` NULL: the whole
 * image), in src/apply.c: split over the context's devices where `split`
 * and it pays, else on its first device. */
oclconv_status oclconv__apply_host(oclconv_context *ctx, const oclconv_image *src,
                                   const oclconv_region *where, oclconv_image *dst,
                                   const oclconv_filter *f, const oclconv_options *opt,
                                   int split);
/* Whether a checked call on a context over several devices splits. */
int oclconv__split_worth(const oclconv_context *ctx, const oclconv_image *dst);
/* first[0..n]: the split of `total` (rows, images) among n devices after
 * their rates (rows or images a second; equal until all are measured). */
void oclconv__split(const double *rates, int n, long long total, long long *first);
/* Runs task(args + k * size) for each device k of ctx: side by side on
 * threads, or in turn where the devices are all the host's CPU. */
void oclconv__on_devices(oclconv_context *ctx, void *(*task)(void *), void *args, size_t size);
/* Moves device k's rate halfway to `done` units in `seconds`. */
void oclconv__update_rates(double *rates, int k, double done, double seconds);
/* The call split into shares of rows, one a device, run side by side. */
oclconv_status oclconv__apply_devices(oclconv_context *ctx, const oclconv_image *src,
                                      const oclconv_region *where, oclconv_image *dst,
                                      const oclconv_filter *f, const oclconv_options *opt);

/* ---- transfer.c: launches, kernel time, arguments, uploads ---------------- */
/* Whether the job's path filters a stack in one launch (cl/common.cl STACKED). */
int oclconv__stackable(const oclconv__job *job);
/* The images a job's launches filter: its stack's, else 1. */
static inline size_t oclconv__stack_of(const oclconv__job *job)
{ return job->stack > 1 ? (size_t)job->stack : 1; }
/* Enqueues a 2-D range of at least gx x gy work-items in groups of the job's
 * local size (or the runtime's choice), for each image of a stack. */
oclconv_status oclconv__run_2d(oclconv_context *ctx, const oclconv__job *job, cl_kernel k,
                               size_t gx, size_t gy);
/* The same in groups of lx x ly (0 x 0: the runtime's choice). */
oclconv_status oclconv__run_2d_local(oclconv_context *ctx, const oclconv__job *job, cl_kernel k,
                                     size_t gx, size_t gy,
                                     size_t lx, size_t ly);
/* One launch as oclconv__run_2d_local() makes it, its event (when not
 * NULL) the caller's rather than the call's kernel time's. */
oclconv_status oclconv__launch(oclconv_context *ctx, const oclconv__job *job, cl_kernel k,
                               size_t gx, size_t gy, size_t lx, size_t ly, cl_event *event);
/* Adds the device time from first's start to last's end to the call's
 * kernel time, waiting for last: commands without events of their own
 * between them (VkFFT's) are counted too. */
void oclconv__bank_span(oclconv_context *ctx, cl_event first, cl_event last);
/* Sums the device time of the kernels the call enqueued into
 * ctx->last_kernel_seconds and forgets their events. */
void oclconv__collect_kernel_time(oclconv_context *ctx);
/* Keeps the time of the kernels enqueued so far for that sum, waiting for
 * them, so that their event slots can be reused (many parts). */
void oclconv__bank_kernel_time(oclconv_context *ctx);
/* Forgets the call's kernel events without waiting for them; returns the
 * last one, retained, when `keep_last`. */
cl_event oclconv__forget_kernel_events(oclconv_context *ctx, int keep_last);
/* Sets `count` arguments of k from `first` on; the variable arguments are
 * pairs (size_t size, const void *value). */
oclconv_status oclconv__args(oclconv_context *ctx, cl_kernel k, cl_uint first, int count, ...);
/* A scalar kernel argument in the job's accumulator type. */
typedef union {
    float f;
    double d;
} oclconv__acc;
oclconv__acc oclconv__to_acc(const oclconv__job *job, double v);
size_t oclconv__acc_size(const oclconv__job *job);
/* The bytes of one of the box path's window sums (cl/box.cl's sum_t). */
size_t oclconv__sum_size(const oclconv__job *job);
/* Whether sums of the job's values over `taps` taps fit 16 bits: 8-bit
 * values, at most 257 taps. */
int oclconv__sums_fit16(const oclconv__job *job, size_t taps);
/* Uploads `bytes` of malloc'ed `values` (taken: kept for reuse or freed),
 * or finds the same bytes uploaded lately (caller releases *out). */
oclconv_status oclconv__upload_bytes(oclconv_context *ctx, void *values, size_t bytes,
                                     cl_mem *out);
/* Uploads `n` weights in the job's accumulator type, or finds the same
 * values uploaded lately (caller releases). */
oclconv_status oclconv__upload_weights(oclconv_context *ctx, const oclconv__job *job,
                                       const double *w, size_t n, cl_mem *out);
/* Sets argument `index` of k to `n` weights times 2^-shift (job->shift) in
 * the job's accumulator type: by value where job->taps_by_value, else
 * uploaded into *mem (caller releases). */
oclconv_status oclconv__taps_arg(oclconv_context *ctx, const oclconv__job *job, cl_kernel k,
                                cl_uint index, const double *w, size_t n, int shift,
                                cl_mem *mem);
/* Lets go of the context's kept upload i (oclconv_destroy()). */
void oclconv__forget_weights(oclconv_context *ctx, int i);

/* ---- one file per path ---------------------------------------------------- */
/* Buffer-based paths enqueue their kernels from io->in to io->out. */
/* The 2-D kernels (buffer, tiled, image) end with the same arguments (see
 * cl/common.cl): sets the weights (by value where job->taps_by_value, else
 * uploaded into *weights, which the caller releases), border value, scale,
 * delta and weight sum from argument `first` on. */
oclconv_status oclconv__weight_args(oclconv_context *ctx, const oclconv__job *job, cl_kernel k,
                                    cl_uint first, cl_mem *weights);
/* The direct 2-D kernels (buffer, tiled) share their arguments: builds
 * cl/<source>.cl with the common and the extra options, runs gx x gy;
 * with `layout` (oclconv__io_layout()) its six values follow the weights'. */
oclconv_status oclconv__run_direct(oclconv_context *ctx, const oclconv__job *job,
                                   const oclconv__io *io, const char *source, const char *kernel,
                                   const char *extra_options, const cl_int *layout, size_t gx,
                                   size_t gy);
oclconv_status oclconv__run_buffer(oclconv_context *ctx, const oclconv__job *job,
                                   const oclconv__io *io);
oclconv_status oclconv__run_tiled(oclconv_context *ctx, const oclconv__job *job,
                                  const oclconv__io *io);
oclconv_status oclconv__run_separable(oclconv_context *ctx, const oclconv__job *job,
                                      const oclconv__io *io);
oclconv_status oclconv__run_box(oclconv_context *ctx, const oclconv__job *job,
                                const oclconv__io *io);
oclconv_status oclconv__run_runs(oclconv_context *ctx, const oclconv__job *job,
                                 const oclconv__io *io);
/* The runs of equal non-zero taps along the filter's rows (path_runs.c). */
int oclconv__count_runs(const oclconv_filter *f);
/* The bytes of the runs path's prefix sums for a source row `width` pixels
 * long (the row and the filter's reach, and one more). */
size_t oclconv__runs_row_bytes(const oclconv__job *job, int width);
/* The image path moves its own pixels. */
oclconv_status oclconv__run_image(oclconv_context *ctx, const oclconv__job *job);

#endif
