/*
 * bench — throughput of every oclconv path on 4K images, beside OpenCV.
 *
 * Usage:
 *   make bench               build and run the full bench (about 4 minutes on 2 CPU cores)
 *   make bench QUICK=1       or `make bench-quick`: 1920x1080 images, 6 of the 15 cases,
 *                            fewer runs (under a minute)
 *   build/bench/bench [--quick] [--size WxH]... [--commit ID] [--verbose]
 *   OCLCONV_DEVICE=gpu make bench      the device, as everywhere (oclconv_create(NULL))
 *
 * For u8 gray, RGBA8 and f32 gray images of 3840x2160 (and 7680x4320 on
 * devices that are not CPUs) with the CLAMP border
 * it times Gaussian (sigma = r/3), random 2-D, random separable and box
 * filters of several radii through every path the library names (BUFFER,
 * IMAGE, TILED, SEPARABLE, ...) and through AUTO: end to end (wall clock
 * around oclconv_apply, host memory in and out) and kernel only
 * (oclconv_last_kernel_seconds; with pinned images, of the whole image in
 * one band).  Beside them: the roofline (the device's
 * copy rate for the same bytes and its FP32 rate) and, when the bench was
 * built with OpenCV (pkg-config opencv4), OpenCV on the CPU for the same
 * operation.  Under the f32 table, box r31 and r63 again on an image that
 * holds one value of 1e-30, where no running sum is exact and the box path
 * walks.  It ends with the AUTO/OpenCV ratios, box r31 against box r1,
 * and the cold start: the time a fresh process (this program run with
 * --cold) takes to its first filtered image, and the programs a second
 * filter of a new sigma builds (0).  Rows print as they are measured; the
 * legend under the tables says how each number was taken.  Paths too slow
 * to time in reason are predicted from a small probe and skipped ("slow").
 *
 * bench/gpu_peers.py times the same filters through CuPy and PyTorch on a
 * CUDA GPU, for comparison with a GPU run of this program.
 */
#include "oclconv.h"
#ifdef OCLCONV_BENCH_OPENCV
#include "opencv_peer.h"
#endif

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ====== Settings ====================================================== */
typedef struct {
    int width, height;     /* the measured images */
    int probe;             /* side of the square probe images */
    int runs;              /* timed runs per cell, at most */
    double cell_budget;    /* stop repeating once a cell has run this long (s) */
    double slow_limit;     /* a forced path predicted above this is "slow" (s per run) */
    double estimate_limit; /* AUTO predicted above this is estimated, not run (s per run) */
    double warmup_limit;   /* no full-size warm-up for runs predicted above this (s) */
    double total_budget;   /* after this, one run per cell and no warm-ups (s) */
} settings;

static const settings full_settings = {3840, 2160, 256, 7, 3.0, 2.0, 6.0, 1.0, 420.0};
static const settings quick_settings = {1920, 1080, 256, 3, 0.75, 0.5, 1.5, 0.25, 30.0};

/* ====== Clocks, random numbers, images ================================= */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t rng_state;

static void rng_seed(uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15u + 0x2545F4914F6CDD1Du;
}

/* splitmix64: small, seeded, and the same on every machine. */
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
static double rng_uniform(double lo, double hi)
{
    return lo + (hi - lo) * (double)(rng_next() >> 11) * 0x1p-53;
}

static size_t type_size(oclconv_type t)
{
    return t == OCLCONV_U8 ? 1 : t == OCLCONV_U16 ? 2 : 4;
}

static size_t image_bytes(const oclconv_image *img)
{
    return (size_t)img->width * (size_t)img->height * (size_t)img->channels *
           type_size(img->type);
}

/* Set on devices with memory of their own: images then live in memory
 * from oclconv_host_alloc(), which such a device reaches by DMA. */
static oclconv_context *host_ctx;

/* A packed image in page-aligned (or the device's pinned) memory, zeroed. */
static int image_alloc(oclconv_image *img, int width, int height, int channels,
                       oclconv_type type)
{
    memset(img, 0, sizeof *img);
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->type = type;
    size_t bytes = image_bytes(img);
    if (host_ctx ? oclconv_host_alloc(host_ctx, bytes, &img->data) != OCLCONV_OK
                 : posix_memalign(&img->data, 4096, bytes) != 0) {
        img->data = NULL;
        return -1;
    }
    memset(img->data, 0, bytes);
    return 0;
}

static void image_free(oclconv_image *img)
{
    if (host_ctx)
        oclconv_host_free(host_ctx, img->data);
    else
        free(img->data);
    img->data = NULL;
}

/* Noise: every byte of u8 pixels random, f32 pixels uniform in [0, 1). */
static void image_fill(oclconv_image *img, uint64_t seed)
{
    rng_seed(seed);
    size_t n = (size_t)img->width * (size_t)img->height * (size_t)img->channels;
    if (img->type == OCLCONV_U8) {
        unsigned char *p = img->data;
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            uint64_t r = rng_next();
            memcpy(p + i, &r, 8);
        }
        for (; i < n; i++)
            p[i] = (unsigned char)rng_next();
    } else if (img->type == OCLCONV_F32) {
        float *p = img->data;
        for (size_t i = 0; i < n; i++)
            p[i] = (float)(rng_next() >> 40) * 0x1p-24f;
    }
}

/* Largest |a - b| over all values of two images of the same shape. */
static double max_diff(const oclconv_image *a, const oclconv_image *b)
{
    size_t n = (size_t)a->width * (size_t)a->height * (size_t)a->channels;
    double m = 0;
    if (a->type == OCLCONV_U8) {
        const unsigned char *p = a->data, *q = b->data;
        int mi = 0;
        for (size_t i = 0; i < n; i++) {
            int d = abs((int)p[i] - (int)q[i]);
            if (d > mi)
                mi = d;
        }
        m = mi;
    } else {
        const float *p = a->data, *q = b->data;
        for (size_t i = 0; i < n; i++) {
            double d = fabs((double)p[i] - (double)q[i]);
            if (!(d <= m)) /* NaN counts as a mismatch */
                m = isnan(d) ? INFINITY : d;
        }
    }
    return m;
}

/* The fastest of n runs: on a shared machine, interference only ever slows
 * a run down (a whole core lost for a run halves a CPU device's rate), so
 * the fastest run is the closest look at what the code costs.  Every
 * contender, the peers included, is timed the same way. */
static double fastest(const double *v, int n)
{
    double m = INFINITY;
    for (int i = 0; i < n; i++)
        if (v[i] < m)
            m = v[i];
    return m;
}

/* ====== Formats and cases ============================================== */
typedef struct {
    const char *name;
    oclconv_type type;
    int channels;
} format;

static const format formats[] = {
    {"u8 gray", OCLCONV_U8, 1},
    {"RGBA8", OCLCONV_U8, 4},
    {"f32 gray", OCLCONV_F32, 1},
};
#define FORMAT_COUNT (int)(sizeof formats / sizeof formats[0])

typedef enum { GAUSS, RAND2D, SEP, BOX } kind;
static const char *const kind_names[] = {"gauss", "rand2d", "sep", "box"};
#define KIND_COUNT 4

typedef struct {
    kind k;
    int r;
} bench_case;

static const bench_case full_cases[] = {
    {GAUSS, 1},  {GAUSS, 3},  {GAUSS, 7}, {GAUSS, 15}, {RAND2D, 1}, {RAND2D, 2}, {RAND2D, 3},
    {RAND2D, 7}, {SEP, 1},    {SEP, 3},   {SEP, 7},    {SEP, 15},   {BOX, 1},    {BOX, 7},
    {BOX, 31},
};
static const bench_case quick_cases[] = {
    {GAUSS, 3}, {GAUSS, 15}, {RAND2D, 2}, {SEP, 7}, {BOX, 1}, {BOX, 31},
};

/* The Gaussian's sigma for a radius: the radius is 3 sigma. */
#define GAUSS_SIGMA_PER_RADIUS (1.0 / 3.0)

typedef struct {
    bench_case c;
    char label[16];
    oclconv_filter *filter;
    double sigma;      /* GAUSS */
    float *k2d;        /* RAND2D: (2r+1)^2 weights, row by row */
    float *row, *col;  /* SEP: 2r+1 taps each */
    double macs;       /* fewest multiply-adds per pixel and channel */
} case_data;

static void case_free(case_data *cd)
{
    oclconv_filter_destroy(cd->filter);
    free(cd->k2d);
    free(cd->row);
    free(cd->col);
    memset(cd, 0, sizeof *cd);
}

/* Builds the filter of a case; the random weights depend on the case only,
 * so every format and every run sees the same filter. */
static int case_make(const bench_case *c, case_data *cd)
{
    memset(cd, 0, sizeof *cd);
    cd->c = *c;
    snprintf(cd->label, sizeof cd->label, "%s r%d", kind_names[c->k], c->r);
    int n = 2 * c->r + 1;
    oclconv_status s = OCLCONV_E_INVALID_ARG;
    rng_seed(0xC0FFEEu + 1000u * (unsigned)c->k + (unsigned)c->r);
    switch (c->k) {
    case GAUSS:
        cd->sigma = c->r * GAUSS_SIGMA_PER_RADIUS;
        s = oclconv_filter_gaussian(cd->sigma, 0, c->r, c->r, &cd->filter);
        cd->macs = 2.0 * n;
        break;
    case RAND2D: {
        /* Mixed signs, summing to 1 as sharpening-like filters do. */
        cd->k2d = malloc((size_t)n * (size_t)n * sizeof *cd->k2d);
        if (!cd->k2d)
            return -1;
        double sum = 0;
        for (int i = 0; i < n * n; i++)
            sum += cd->k2d[i] = (float)rng_uniform(-0.25, 1.0);
        for (int i = 0; i < n * n; i++)
            cd->k2d[i] = (float)(cd->k2d[i] / sum);
        s = oclconv_filter_create(n, n, cd->k2d, &cd->filter);
        cd->macs = (double)n * n;
        break;
    }
    case SEP: {
        cd->row = malloc((size_t)n * sizeof *cd->row);
        cd->col = malloc((size_t)n * sizeof *cd->col);
        if (!cd->row || !cd->col)
            return -1;
        double sr = 0, sc = 0;
        for (int i = 0; i < n; i++) {
            sr += cd->row[i] = (float)rng_uniform(0.05, 1.0);
            sc += cd->col[i] = (float)rng_uniform(0.05, 1.0);
        }
        for (int i = 0; i < n; i++) {
            cd->row[i] = (float)(cd->row[i] / sr);
            cd->col[i] = (float)(cd->col[i] / sc);
        }
        s = oclconv_filter_separable(n, cd->row, n, cd->col, &cd->filter);
        cd->macs = 2.0 * n;
        break;
    }
    case BOX:
        s = oclconv_filter_box(c->r, c->r, &cd->filter);
        cd->macs = 4; /* running sums: an add and a subtract in each direction */
        break;
    }
    if (s != OCLCONV_OK) {
        fprintf(stderr, "bench: making the %s filter failed: %s (%s)\n", cd->label,
                oclconv_strerror(s), oclconv_errmsg(NULL));
        return -1;
    }
    return 0;
}

/* ====== Runners: one way to compute a case ============================== */
typedef struct {
    double e2e;          /* seconds of the call, when the runner timed it itself */
    double kern;         /* device seconds of the kernels; 0 when unknown */
    int compiled;        /* the call built at least one program */
    oclconv_method took; /* the path that ran */
} run_info;

#define RUN_PEER_FAILED (-100)

typedef struct runner runner;
struct runner {
    int (*run)(runner *r, const oclconv_image *src, oclconv_image *dst, run_info *info);
    oclconv_context *ctx;
    const case_data *cd;
    oclconv_method method;
    char err[256];
};

static int run_oclconv(runner *r, const oclconv_image *src, oclconv_image *dst, run_info *info)
{
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.border = OCLCONV_BORDER_CLAMP;
    opt.method = r->method;
    size_t built = oclconv_programs_built(r->ctx);
    double t0 = now();
    oclconv_status s = oclconv_apply(r->ctx, src, dst, r->cd->filter, &opt);
    info->e2e = now() - t0;
    /* Pinned images on a device with memory of its own run in bands of
     * rows; the kernel time is the whole image's, from a call in one. */
    if (s == OCLCONV_OK && host_ctx) {
        setenv("OCLCONV_BANDS", "1", 1);
        s = oclconv_apply(r->ctx, src, dst, r->cd->filter, &opt);
        unsetenv("OCLCONV_BANDS");
    }
    if (s != OCLCONV_OK) {
        snprintf(r->err, sizeof r->err, "%s: %s", oclconv_strerror(s), oclconv_errmsg(r->ctx));
        return (int)s;
    }
    info->kern = oclconv_last_kernel_seconds(r->ctx);
    info->compiled = oclconv_programs_built(r->ctx) != built;
    info->took = oclconv_last_method(r->ctx);
    return 0;
}

#ifdef OCLCONV_BENCH_OPENCV
static int run_opencv(runner *r, const oclconv_image *src, oclconv_image *dst, run_info *info)
{
    const case_data *cd = r->cd;
    int n = 2 * cd->c.r + 1, e = -1;
    switch (cd->c.k) {
    case GAUSS: e = ocvpeer_gaussian(src, dst, n, cd->sigma); break;
    case RAND2D: e = ocvpeer_filter2d(src, dst, cd->k2d, n, n); break;
    case SEP: e = ocvpeer_sep_filter2d(src, dst, cd->row, n, cd->col, n); break;
    case BOX: e = ocvpeer_blur(src, dst, n); break;
    }
    info->kern = 0;
    info->compiled = 0;
    info->took = OCLCONV_METHOD_AUTO;
    if (e != 0) {
        snprintf(r->err, sizeof r->err, "OpenCV: %s", ocvpeer_errmsg());
        return RUN_PEER_FAILED;
    }
    return 0;
}
#endif

/* ====== Measuring one cell ============================================== */
typedef enum {
    CELL_NONE,        /* not measured (no peer) */
    CELL_OK,          /* timed at full size */
    CELL_UNSUPPORTED, /* the path refused the job */
    CELL_SLOW,        /* predicted too slow to time */
    CELL_ESTIMATED,   /* AUTO predicted too slow: scaled from the probe */
    CELL_ERROR        /* a call failed */
} cell_state;

typedef struct {
    cell_state state;
    double e2e, kern; /* seconds for one full-size image: the fastest run, or the estimate */
    int runs;
    oclconv_method took;
    double diff;      /* largest difference from the reference; < 0 when not compared */
    int mismatch;
} cell;

typedef struct {
    oclconv_image src, dst, ref; /* full size */
    oclconv_image probe_src, probe_dst, tiny_src, tiny_dst;
    int have_ref, ref_is_opencv;
} image_set;

static double bench_start, deadline;
static int verbose;

/* Up to 16 notes (errors, mismatches) printed under the table. */
static char notes[16][512];
static int note_count, notes_dropped;

static void add_note(const char *fmt_label, const char *what, const char *detail)
{
    if (note_count >= 16) {
        notes_dropped++;
        return;
    }
    snprintf(notes[note_count++], sizeof notes[0], "%s, %s: %s", fmt_label, what, detail);
}

/* Whether a difference from the reference is only rounding.  OpenCV's 8-bit
 * GaussianBlur rounds its taps to 8 fractional bits, so it may land a few
 * units away. */
static double tolerance(const image_set *im, const case_data *cd)
{
    if (im->src.type == OCLCONV_F32)
        return 1e-3;
    return im->ref_is_opencv && cd->c.k == GAUSS ? 4 : 1;
}

/* A failed run ends the cell: "-" when the path cannot run it, else "err". */
static void fail_cell(cell *c, int st)
{
    c->state = st == OCLCONV_E_UNSUPPORTED ? CELL_UNSUPPORTED : CELL_ERROR;
}

/*
 * Times one runner on the full-size images:
 *  1. a run on a 64x64 image (or, if the path refuses that, on the probe
 *     image) builds what the path needs, untimed;
 *  2. the fastest of up to 3 runs on the probe image predicts the full-size
 *     time;
 *  3. above the limit the cell is "slow" (or, for AUTO, estimated from the
 *     probe); else a full-size warm-up when it is cheap, then timed runs until
 *     `runs` of them, the cell budget, or one run over the slow limit.
 */
static void measure(runner *r, image_set *im, const settings *S, int estimate, cell *c)
{
    memset(c, 0, sizeof *c);
    c->diff = -1;
    run_info info = {0};
    int st = r->run(r, &im->tiny_src, &im->tiny_dst, &info);
    if (st == OCLCONV_E_UNSUPPORTED)
        st = r->run(r, &im->probe_src, &im->probe_dst, &info);
    /* The fastest of up to 3 probe runs (a run that built a program does not
     * count): one run alone is at the mercy of a busy machine. */
    double scale = (double)S->width * S->height / ((double)S->probe * S->probe);
    double tp = INFINITY, probe_kern = 0;
    for (int attempt = 0, good = 0; st == 0 && attempt < 4 && good < 3; attempt++) {
        double t0 = now();
        st = r->run(r, &im->probe_src, &im->probe_dst, &info);
        double t = now() - t0;
        if (info.compiled)
            continue;
        good++;
        if (t < tp) {
            tp = t;
            probe_kern = info.kern;
        }
        if (tp * scale < S->warmup_limit / 2)
            break; /* clearly fast enough: no need to look closer */
        if (!estimate && tp * scale > 3 * S->slow_limit)
            break; /* clearly slow: a closer look changes nothing */
    }
    if (st != 0 || !isfinite(tp)) {
        fail_cell(c, st);
        if (st == 0)
            snprintf(r->err, sizeof r->err, "every probe run built a program");
        return;
    }
    info.kern = probe_kern;
    double predicted = tp * scale;
    if (verbose)
        fprintf(stderr, "  probe %s: %.4f s (kernels %.4f s, %s), %.3f s predicted\n",
                r->method                ? oclconv_method_name(r->method)
                : r->run == run_oclconv ? "auto"
                                        : "peer",
                tp, info.kern, oclconv_method_name(info.took), predicted);
    c->took = info.took;
    if (predicted > (estimate ? S->estimate_limit : S->slow_limit)) {
        c->state = estimate ? CELL_ESTIMATED : CELL_SLOW;
        c->e2e = predicted;
        c->kern = info.kern * scale;
        return;
    }
    int late = now() > deadline;
    memset(im->dst.data, 0, image_bytes(&im->dst)); /* a path that writes nothing shows */
    if (predicted <= S->warmup_limit && !late) {
        st = r->run(r, &im->src, &im->dst, &info);
        if (st != 0) {
            fail_cell(c, st);
            return;
        }
    }
    double e2e[64], kern[64], start = now();
    int n = 0, rebuilt = 0;
    while (n < S->runs && n < 64) {
        double t0 = now();
        info.e2e = 0;
        st = r->run(r, &im->src, &im->dst, &info);
        double t = now() - t0;
        if (st != 0) {
            fail_cell(c, st);
            return;
        }
        if (info.compiled && !rebuilt++)
            continue; /* a build is no sample; it happens once at most */
        e2e[n] = info.e2e > 0 ? info.e2e : t;
        kern[n] = info.kern;
        n++;
        c->took = info.took;
        if (late || t > S->slow_limit || now() - start + t > S->cell_budget)
            break;
    }
    c->state = CELL_OK;
    c->runs = n;
    c->e2e = fastest(e2e, n);
    c->kern = fastest(kern, n);
}

/* Compares the cell's output with the reference, or makes it the reference. */
static void check_output(image_set *im, const case_data *cd, cell *c, int is_opencv,
                         const char *fmt_label, const char *what)
{
    if (c->state != CELL_OK)
        return;
    if (!im->have_ref) {
        memcpy(im->ref.data, im->dst.data, image_bytes(&im->dst));
        im->have_ref = 1;
        im->ref_is_opencv = is_opencv;
        return;
    }
    c->diff = max_diff(&im->dst, &im->ref);
    if (verbose)
        fprintf(stderr, "  %s, %s: largest difference from the reference %g\n", fmt_label, what,
                c->diff);
    if (c->diff > tolerance(im, cd)) {
        c->mismatch = 1;
        char detail[160];
        snprintf(detail, sizeof detail, "output differs from %s by up to %g (tolerance %g)",
                 im->ref_is_opencv ? "OpenCV's" : "the first oclconv path's", c->diff,
                 tolerance(im, cd));
        add_note(fmt_label, what, detail);
    }
}

/* ====== The device's own rates ========================================== */
static double event_seconds(cl_event ev)
{
    cl_ulong t0 = 0, t1 = 0;
    if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) !=
            CL_SUCCESS ||
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) != CL_SUCCESS)
        return 0;
    return 1e-9 * (double)(t1 - t0);
}

/* The best device time of clEnqueueCopyBuffer of `bytes` on the library's
 * queue over `runs` copies after one more; 0 on failure. */
static double copy_seconds(oclconv_context *ctx, size_t bytes, int runs)
{
    cl_context cl = oclconv_cl_context(ctx);
    cl_command_queue q = oclconv_cl_queue(ctx);
    cl_int err, e2;
    cl_mem a = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem b = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &e2);
    double t[16], result = 0;
    int n = 0;
    if (err == CL_SUCCESS && e2 == CL_SUCCESS) {
        const cl_uchar pattern = 0x5A;
        clEnqueueFillBuffer(q, a, &pattern, 1, 0, bytes, 0, NULL, NULL);
        clEnqueueFillBuffer(q, b, &pattern, 1, 0, bytes, 0, NULL, NULL);
        for (int i = 0; i <= runs && i < 16; i++) {
            cl_event ev;
            if (clEnqueueCopyBuffer(q, a, b, 0, 0, bytes, 0, NULL, &ev) != CL_SUCCESS)
                break;
            clWaitForEvents(1, &ev);
            double s = event_seconds(ev);
            clReleaseEvent(ev);
            if (i > 0 && s > 0) /* the first copy is the warm-up */
                t[n++] = s;
        }
        for (int i = 0; i < n; i++)
            if (result == 0 || t[i] < result)
                result = t[i];
    }
    if (a)
        clReleaseMemObject(a);
    if (b)
        clReleaseMemObject(b);
    return result;
}

/* Independent chains of mad() per work-item, in two shapes: eight float16
 * chains fill the wide vector units of CPUs (PoCL does not vectorise across
 * work-items here), eight float4 chains keep a GPU's registers few.  The
 * faster of the two is the device's rate. */
static const char fp32_source[] =
    "#define CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)\n"
    "#define MAD(i) x##i = mad(x##i, a, b);\n"
    "#define INIT(i) floatN x##i = seed + (float)(i) * 0.1f;\n"
    "#define SUM(i) + x##i\n"
    "__kernel void mad_rate(__global float *out, float a, float b)\n"
    "{\n"
    "    floatN seed = (floatN)((float)(get_global_id(0) & 255) * 1e-3f);\n"
    "    CHAINS(INIT)\n"
    "    for (int i = 0; i < ITER; i++) {\n"
    "        CHAINS(MAD)\n"
    "    }\n"
    "    floatN s = 0 CHAINS(SUM);\n"
    /* Every lane reaches the output, or the compiler drops the unused ones. */
    "#if WIDTH == 16\n"
    "    float8 s8 = s.lo + s.hi;\n"
    "    float4 s4 = s8.lo + s8.hi;\n"
    "#else\n"
    "    float4 s4 = s;\n"
    "#endif\n"
    "    out[get_global_id(0)] = dot(s4, (float4)(1.0f));\n"
    "}\n";

/* The flop/s of one build of fp32_source (vector width `width`), the best of
 * 5 launches that take at least 20 ms each; 0 on failure. */
static double fp32_variant(oclconv_context *ctx, int width, int iterations)
{
    cl_context cl = oclconv_cl_context(ctx);
    cl_device_id dev = oclconv_cl_device(ctx);
    cl_command_queue q = oclconv_cl_queue(ctx);
    const char *src = fp32_source;
    char options[64];
    snprintf(options, sizeof options, "-DfloatN=float%d -DWIDTH=%d -DITER=%d", width, width,
             iterations);
    cl_int err;
    double best = 0, per_item = 2.0 * 8 * width * iterations;
    cl_program p = clCreateProgramWithSource(cl, 1, &src, NULL, &err);
    if (err != CL_SUCCESS)
        return 0;
    cl_kernel k = NULL;
    cl_mem out = NULL;
    const size_t max_items = (size_t)1 << 24;
    if (clBuildProgram(p, 1, &dev, options, NULL, NULL) == CL_SUCCESS)
        k = clCreateKernel(p, "mad_rate", &err);
    if (k)
        out = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, max_items * sizeof(float), NULL, &err);
    if (out) {
        float a = 0.999f, b = 0.001f;
        clSetKernelArg(k, 0, sizeof out, &out);
        clSetKernelArg(k, 1, sizeof a, &a);
        clSetKernelArg(k, 2, sizeof b, &b);
        int n = 0;
        for (size_t items = (size_t)1 << 12; items <= max_items && n < 5;) {
            cl_event ev;
            if (clEnqueueNDRangeKernel(q, k, 1, NULL, &items, NULL, 0, NULL, &ev) != CL_SUCCESS)
                break;
            clWaitForEvents(1, &ev);
            double t = event_seconds(ev);
            clReleaseEvent(ev);
            if (t <= 0)
                break;
            if (t < 0.02 && items < max_items) {
                items *= 2;
                continue;
            }
            double rate = per_item * (double)items / t;
            if (rate > best)
                best = rate;
            n++;
        }
    }
    if (out)
        clReleaseMemObject(out);
    if (k)
        clReleaseKernel(k);
    clReleaseProgram(p);
    return best;
}

/* The device's FP32 rate in flop/s, measured; 0 on failure. */
static double fp32_rate(oclconv_context *ctx)
{
    double wide = fp32_variant(ctx, 16, 32), narrow = fp32_variant(ctx, 4, 128);
    return wide > narrow ? wide : narrow;
}

/* ====== Cold start ====================================================== */
/* In the child (`bench --cold T0`): a 4K RGBA8 Gaussian r3 right away, then
 * one of a new sigma, reported on stdout as one line. */
static int cold_child(const char *t0_text)
{
    int64_t t_main = now_ns(), t0 = strtoll(t0_text, NULL, 10);
    oclconv_image src, dst;
    if (image_alloc(&src, 3840, 2160, 4, OCLCONV_U8) ||
        image_alloc(&dst, 3840, 2160, 4, OCLCONV_U8)) {
        printf("cold error out of memory\n");
        return 1;
    }
    image_fill(&src, 7);
    int64_t t_img = now_ns();
    oclconv_context *ctx = NULL;
    oclconv_filter *f = NULL, *g = NULL;
    oclconv_status s = oclconv_create(NULL, &ctx);
    int64_t t_ctx = now_ns();
    if (s == OCLCONV_OK)
        s = oclconv_filter_gaussian(1.0, 0, 3, 3, &f);
    if (s == OCLCONV_OK)
        s = oclconv_apply(ctx, &src, &dst, f, NULL);
    int64_t t_first = now_ns();
    size_t built_first = oclconv_programs_built(ctx);
    if (s == OCLCONV_OK)
        s = oclconv_filter_gaussian(1.3, 0, 3, 3, &g);
    int64_t t_g = now_ns();
    if (s == OCLCONV_OK)
        s = oclconv_apply(ctx, &src, &dst, g, NULL);
    int64_t t_second = now_ns();
    size_t built_second = oclconv_programs_built(ctx) - built_first;
    if (s != OCLCONV_OK)
        printf("cold error %s: %s\n", oclconv_strerror(s),
               ctx ? oclconv_errmsg(ctx) : oclconv_errmsg(NULL));
    else
        printf("cold ok %.3f %.3f %.3f %zu %.3f %zu %s\n", 1e-6 * (double)(t_main - t0),
               1e-6 * (double)(t_ctx - t_img), 1e-6 * (double)(t_first - t_ctx), built_first,
               1e-6 * (double)(t_second - t_g), built_second,
               oclconv_method_name(oclconv_last_method(ctx)));
    oclconv_filter_destroy(f);
    oclconv_filter_destroy(g);
    oclconv_destroy(ctx);
    image_free(&src);
    image_free(&dst);
    return s == OCLCONV_OK ? 0 : 1;
}

typedef struct {
    int ok;
    double pre_main_ms, create_ms, first_ms, second_ms;
    size_t built_first, built_second;
    char method[16];
    char error[1024];
} cold_result;

/* The environment with the driver caches pointed at `cache`. */
static char **cold_environment(const char *cache, char *pocl, char *cuda, size_t size)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = malloc((n + 3) * sizeof *env);
    if (!env)
        return NULL;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "POCL_CACHE_DIR=", 15) != 0 &&
            strncmp(environ[i], "CUDA_CACHE_PATH=", 16) != 0)
            env[m++] = environ[i];
    snprintf(pocl, size, "POCL_CACHE_DIR=%s/pocl", cache);
    snprintf(cuda, size, "CUDA_CACHE_PATH=%s/cuda", cache);
    env[m++] = pocl;
    env[m++] = cuda;
    env[m] = NULL;
    return env;
}

/* Runs `self --cold T0` with the driver caches in `cache` and reads its line. */
static void cold_start(const char *self, const char *cache, cold_result *out)
{
    memset(out, 0, sizeof *out);
    char pocl[600], cuda[600];
    char **env = cold_environment(cache, pocl, cuda, sizeof pocl);
    int fd[2];
    if (!env || pipe(fd) != 0) {
        snprintf(out->error, sizeof out->error, "no pipe: %s", strerror(errno));
        free(env);
        return;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
    char t0_text[32], cold_flag[] = "--cold", *self_copy = strdup(self);
    char *argv[] = {self_copy, cold_flag, t0_text, NULL};
    pid_t pid = 0;
    snprintf(t0_text, sizeof t0_text, "%lld", (long long)now_ns());
    int e = self_copy ? posix_spawnp(&pid, self, &fa, NULL, argv, env) : ENOMEM;
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    free(env);
    free(self_copy);
    if (e != 0) {
        close(fd[0]);
        snprintf(out->error, sizeof out->error, "cannot start %s: %s", self, strerror(e));
        return;
    }
    char line[960] = "";
    FILE *f = fdopen(fd[0], "r");
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = 0;
        char rest[256];
        while (fgets(rest, sizeof rest, f)) /* drain */
            ;
        fclose(f);
    } else {
        close(fd[0]);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    line[strcspn(line, "\n")] = 0;
    if (sscanf(line, "cold ok %lf %lf %lf %zu %lf %zu %15s", &out->pre_main_ms, &out->create_ms,
               &out->first_ms, &out->built_first, &out->second_ms, &out->built_second,
               out->method) == 7)
        out->ok = 1;
    else if (strncmp(line, "cold error ", 11) == 0)
        snprintf(out->error, sizeof out->error, "%s", line + 11);
    else
        snprintf(out->error, sizeof out->error, "the child printed \"%s\" (exit status %d)", line,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void remove_tree(const char *dir)
{
    char rm[] = "rm", rf[] = "-rf", *d = strdup(dir);
    char *argv[] = {rm, rf, d, NULL};
    pid_t pid = 0;
    if (d && posix_spawnp(&pid, "rm", NULL, NULL, argv, environ) == 0)
        waitpid(pid, NULL, 0);
    free(d);
}

/* ====== The table ======================================================= */
#define MAX_PATHS 8

/* Every path the library names, in the enum's order, so that a new path
 * gets its column without a change here. */
static oclconv_method path_list[MAX_PATHS];
static int path_count;

static void find_paths(void)
{
    for (int m = OCLCONV_METHOD_AUTO + 1; path_count < MAX_PATHS; m++) {
        if (!oclconv_method_name((oclconv_method)m))
            break;
        path_list[path_count++] = (oclconv_method)m;
    }
}

typedef struct {
    cell ocv, autoc, path[MAX_PATHS];
    double roof; /* MP/s; 0 when unknown */
} row;

/* A line built piece by piece, printed without trailing blanks. */
typedef struct {
    char text[256];
    size_t len;
} line;

static void put(line *l, int width, const char *s)
{
    if (l->len < sizeof l->text) {
        int n = snprintf(l->text + l->len, sizeof l->text - l->len, "%*s", width, s);
        if (n > 0)
            l->len += (size_t)n;
        if (l->len >= sizeof l->text)
            l->len = sizeof l->text - 1;
    }
}

static void put_left(line *l, int width, const char *s)
{
    put(l, -width, s);
}

static void print_line(line *l)
{
    while (l->len > 0 && l->text[l->len - 1] == ' ')
        l->len--;
    l->text[l->len] = 0;
    puts(l->text);
    l->len = 0;
}

/* A rate in MP/s in at most 5 characters, '~' in front when estimated. */
static void fmt_rate(char *buf, size_t size, double mps, int estimated)
{
    char num[12];
    if (!(mps > 0))
        snprintf(num, sizeof num, "n/a");
    else if (mps >= 99999.5)
        snprintf(num, sizeof num, "%.0fk", mps / 1000);
    else if (mps >= 99.95)
        snprintf(num, sizeof num, "%.0f", mps);
    else if (mps >= 9.995)
        snprintf(num, sizeof num, "%.1f", mps);
    else
        snprintf(num, sizeof num, "%.2f", mps);
    snprintf(buf, size, "%s%s", estimated ? "~" : "", num);
}

static int has_time(const cell *c)
{
    return c->state == CELL_OK || c->state == CELL_ESTIMATED;
}

/* The e2e and kernel texts of a cell. */
static void fmt_cell(const cell *c, double mp, char *e2e, char *kern, size_t size)
{
    kern[0] = 0;
    switch (c->state) {
    case CELL_NONE: snprintf(e2e, size, "n/a"); break;
    case CELL_UNSUPPORTED: snprintf(e2e, size, "-"); break;
    case CELL_SLOW: snprintf(e2e, size, "slow"); break;
    case CELL_ERROR: snprintf(e2e, size, "err"); break;
    case CELL_ESTIMATED:
    case CELL_OK: {
        int est = c->state == CELL_ESTIMATED;
        fmt_rate(e2e, size, mp / c->e2e, est);
        if (c->mismatch && strlen(e2e) + 1 < size)
            strcat(e2e, "!");
        if (c->kern > 0)
            fmt_rate(kern, size, mp / c->kern, est);
        else
            snprintf(kern, size, "n/a");
        break;
    }
    }
}

static void print_table_header(void)
{
    line l = {"", 0};
    put_left(&l, 10, "case");
    put_left(&l, 5, "time");
    for (int p = 0; p < path_count; p++)
        put(&l, 10, oclconv_method_name(path_list[p]));
    put(&l, 8, "auto");
    put(&l, 2, "");
    put_left(&l, 10, "auto path");
    put(&l, 9, "roofline");
    put(&l, 5, "%");
    put(&l, 8, "OpenCV");
    put(&l, 12, "auto/OpenCV");
    print_line(&l);
}

static void print_row(const case_data *cd, const row *rw, double mp)
{
    char e[16], k[16];
    line l1 = {"", 0}, l2 = {"", 0};
    put_left(&l1, 10, cd->label);
    put_left(&l1, 5, "e2e");
    put_left(&l2, 10, "");
    put_left(&l2, 5, "kern");
    for (int p = 0; p < path_count; p++) {
        fmt_cell(&rw->path[p], mp, e, k, sizeof e);
        put(&l1, 10, e);
        put(&l2, 10, k);
    }
    fmt_cell(&rw->autoc, mp, e, k, sizeof e);
    put(&l1, 8, e);
    put(&l2, 8, k);
    put(&l1, 2, "");
    put_left(&l1, 10, has_time(&rw->autoc) ? oclconv_method_name(rw->autoc.took) : "");
    put(&l2, 12, "");
    /* The roofline and how close AUTO's kernels come to it. */
    char roof[16] = "n/a", pct[16] = "";
    if (rw->roof > 0)
        fmt_rate(roof, sizeof roof, rw->roof, 0);
    if (rw->roof > 0 && rw->autoc.kern > 0 && has_time(&rw->autoc)) {
        double pc = 100 * mp / rw->autoc.kern / rw->roof;
        snprintf(pct, sizeof pct, "%s%.*f", rw->autoc.state == CELL_ESTIMATED ? "~" : "",
                 pc < 9.95 ? 1 : 0, pc);
    }
    put(&l2, 9, roof);
    put(&l2, 5, pct);
    put(&l1, 14, "");
    fmt_cell(&rw->ocv, mp, e, k, sizeof e);
    put(&l1, 8, e);
    char ratio[16] = "n/a";
    if (has_time(&rw->ocv) && has_time(&rw->autoc))
        snprintf(ratio, sizeof ratio, "%s%.2fx",
                 rw->autoc.state == CELL_ESTIMATED || rw->ocv.state == CELL_ESTIMATED ? "~" : "",
                 rw->ocv.e2e / rw->autoc.e2e);
    put(&l1, 12, ratio);
    print_line(&l1);
    print_line(&l2);
}

/* ====== One image format ================================================= */
typedef struct {
    double log_sum;
    int count, estimated;
    double min_ratio;
    char min_where[48];
} ratio_stats;

static void add_ratio(ratio_stats *rs, double q, int estimated, const char *fmt_name,
                      const char *label)
{
    rs->log_sum += log(q);
    rs->count++;
    rs->estimated += estimated;
    if (q < rs->min_ratio) {
        rs->min_ratio = q;
        snprintf(rs->min_where, sizeof rs->min_where, "%s %s", fmt_name, label);
    }
}

/* What the summary compares, per format: the box path's and AUTO's times
 * for box r1 and r31, and AUTO's for the smallest and largest Gaussian. */
typedef struct {
    cell sums_lo, sums_hi, box_lo, box_hi, gauss_lo, gauss_hi;
} format_summary;

#define MAX_SIZES 4

typedef struct {
    const settings *S;
    oclconv_context *ctx;
    case_data *cases;
    int ncases;
    double flops; /* fp32 flop/s; 0 when unknown */
    ratio_stats total;
} bench;

/* The bench's float images are multiples of 2^-24, so the box path's
 * running sums are exact.  One value of 1e-30, as real float images may
 * hold, makes none exact: the box path then checks and walks.  Times the
 * box path and AUTO on such images, box r31 (the table's) and r63 (which
 * AUTO sends to the box path on every device). */
static void inexact_boxes(bench *b, image_set *im, double mp)
{
    ((float *)im->src.data)[0] = ((float *)im->probe_src.data)[0] =
        ((float *)im->tiny_src.data)[0] = 1e-30f;
    static const bench_case boxes[] = {{BOX, 31}, {BOX, 63}};
    for (size_t i = 0; i < sizeof boxes / sizeof *boxes; i++) {
        case_data cd;
        if (case_make(&boxes[i], &cd) != 0) {
            case_free(&cd);
            continue;
        }
        runner r = {run_oclconv, b->ctx, &cd, OCLCONV_METHOD_BOX, ""};
        cell box, autoc;
        measure(&r, im, b->S, 0, &box);
        r.method = OCLCONV_METHOD_AUTO;
        measure(&r, im, b->S, 1, &autoc);
        char e2e[2][16], kern[2][16];
        fmt_cell(&box, mp, e2e[0], kern[0], sizeof e2e[0]);
        fmt_cell(&autoc, mp, e2e[1], kern[1], sizeof e2e[1]);
        printf("%s on an image holding one value of 1e-30 (no exact running sum): box path "
               "e2e %s kern %s, auto (%s) e2e %s kern %s\n",
               cd.label, e2e[0], kern[0], oclconv_method_name(autoc.took), e2e[1], kern[1]);
        case_free(&cd);
    }
}

static int run_format(bench *b, const format *fm, format_summary *sum)
{
    const settings *S = b->S;
    double mp = (double)S->width * S->height / 1e6;
    image_set im;
    memset(&im, 0, sizeof im);
    if (image_alloc(&im.src, S->width, S->height, fm->channels, fm->type) ||
        image_alloc(&im.dst, S->width, S->height, fm->channels, fm->type) ||
        image_alloc(&im.ref, S->width, S->height, fm->channels, fm->type) ||
        image_alloc(&im.probe_src, S->probe, S->probe, fm->channels, fm->type) ||
        image_alloc(&im.probe_dst, S->probe, S->probe, fm->channels, fm->type) ||
        image_alloc(&im.tiny_src, 64, 64, fm->channels, fm->type) ||
        image_alloc(&im.tiny_dst, 64, 64, fm->channels, fm->type)) {
        fprintf(stderr, "bench: out of memory\n");
        return -1;
    }
    uint64_t seed = 1000 * (uint64_t)(fm - formats + 1);
    image_fill(&im.src, seed + 1);
    image_fill(&im.probe_src, seed + 2);
    image_fill(&im.tiny_src, seed + 3);
    size_t bytes = image_bytes(&im.src);
    double copy = copy_seconds(b->ctx, bytes, S->runs);
    double copy_mps = copy > 0 ? mp / copy : 0;

    printf("\n== %s: %d channel%s of %s, %.1f MB an image; MP/s, higher is better ==\n", fm->name,
           fm->channels, fm->channels > 1 ? "s" : "", fm->type == OCLCONV_U8 ? "u8" : "f32",
           (double)bytes / 1e6);
    if (copy > 0)
        printf("device copy of the same bytes (clEnqueueCopyBuffer, best of %d): %.3f ms = %.1f "
               "GB/s read+write = %.0f MP/s\n",
               S->runs, copy * 1e3, 2.0 * (double)bytes / copy / 1e9, copy_mps);
    else
        printf("device copy of the same bytes: not measured\n");
    print_table_header();
    fflush(stdout);

    ratio_stats fstats = {0, 0, 0, INFINITY, ""};
    int slow_seen[MAX_PATHS][KIND_COUNT] = {{0}};
    note_count = notes_dropped = 0;
    for (int ci = 0; ci < b->ncases; ci++) {
        case_data *cd = &b->cases[ci];
        row rw;
        memset(&rw, 0, sizeof rw);
        rw.ocv.state = CELL_NONE;
        im.have_ref = im.ref_is_opencv = 0;
        runner r;
        memset(&r, 0, sizeof r);
        r.ctx = b->ctx;
        r.cd = cd;
        char what[64];
#ifdef OCLCONV_BENCH_OPENCV
        /* OpenCV first: its output is the reference the others meet. */
        r.run = run_opencv;
        measure(&r, &im, S, 1, &rw.ocv);
        if (rw.ocv.state == CELL_ERROR)
            add_note(fm->name, cd->label, r.err);
        snprintf(what, sizeof what, "%s OpenCV", cd->label);
        check_output(&im, cd, &rw.ocv, 1, fm->name, what);
#endif
        r.run = run_oclconv;
        r.method = OCLCONV_METHOD_AUTO;
        measure(&r, &im, S, 1, &rw.autoc);
        snprintf(what, sizeof what, "%s auto", cd->label);
        if (rw.autoc.state == CELL_ERROR)
            add_note(fm->name, what, r.err);
        check_output(&im, cd, &rw.autoc, 0, fm->name, what);
        for (int p = 0; p < path_count; p++) {
            cell *c = &rw.path[p];
            if (slow_seen[p][cd->c.k]) {
                /* No path gets faster as its filter grows. */
                c->state = CELL_SLOW;
                continue;
            }
            r.method = path_list[p];
            measure(&r, &im, S, 0, c);
            snprintf(what, sizeof what, "%s %s", cd->label, oclconv_method_name(path_list[p]));
            if (c->state == CELL_SLOW)
                slow_seen[p][cd->c.k] = 1;
            if (c->state == CELL_ERROR)
                add_note(fm->name, what, r.err);
            check_output(&im, cd, c, 0, fm->name, what);
        }
        /* Roofline: the lower of the copy rate and the FP32 rate for the
         * filter's fewest multiply-adds a pixel. */
        rw.roof = copy_mps;
        if (b->flops > 0) {
            double compute = b->flops / 2 / (cd->macs * fm->channels) / 1e6;
            if (!(rw.roof > 0) || compute < rw.roof)
                rw.roof = compute;
        }
        print_row(cd, &rw, mp);
        fflush(stdout);

        if (has_time(&rw.ocv) && has_time(&rw.autoc)) {
            double q = rw.ocv.e2e / rw.autoc.e2e;
            int est = rw.autoc.state == CELL_ESTIMATED || rw.ocv.state == CELL_ESTIMATED;
            add_ratio(&fstats, q, est, fm->name, cd->label);
            add_ratio(&b->total, q, est, fm->name, cd->label);
        }
        if (cd->c.k == BOX && (cd->c.r == 1 || cd->c.r == 31)) {
            cell *sums = cd->c.r == 1 ? &sum->sums_lo : &sum->sums_hi;
            for (int p = 0; p < path_count; p++)
                if (path_list[p] == OCLCONV_METHOD_BOX)
                    *sums = rw.path[p];
            *(cd->c.r == 1 ? &sum->box_lo : &sum->box_hi) = rw.autoc;
        }
        if (cd->c.k == GAUSS) {
            if (sum->gauss_lo.state == CELL_NONE)
                sum->gauss_lo = rw.autoc;
            sum->gauss_hi = rw.autoc;
        }
    }
    if (fstats.count > 0)
        printf("%s: auto/OpenCV geometric mean %.2fx over %d cases%s, minimum %.2fx (%s)\n",
               fm->name, exp(fstats.log_sum / fstats.count), fstats.count,
               fstats.estimated ? " (~: some estimated)" : "", fstats.min_ratio,
               fstats.min_where);
    if (fm->type == OCLCONV_F32)
        inexact_boxes(b, &im, mp);
    for (int i = 0; i < note_count; i++)
        printf("  note: %s\n", notes[i]);
    if (notes_dropped)
        printf("  note: %d more notes left out\n", notes_dropped);
    fflush(stdout);
    image_free(&im.src);
    image_free(&im.dst);
    image_free(&im.ref);
    image_free(&im.probe_src);
    image_free(&im.probe_dst);
    image_free(&im.tiny_src);
    image_free(&im.tiny_dst);
    return 0;
}

/* ====== Header, legend, summary ========================================== */
static void print_device(oclconv_context *ctx)
{
    cl_device_id dev = oclconv_cl_device(ctx);
    cl_device_type type = 0;
    cl_uint units = 0;
    cl_platform_id platform = NULL;
    char driver[128] = "?", pname[128] = "?";
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof driver, driver, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
    if (platform)
        clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    driver[sizeof driver - 1] = pname[sizeof pname - 1] = 0;
    const char *t = (type & CL_DEVICE_TYPE_GPU)           ? "GPU"
                    : (type & CL_DEVICE_TYPE_CPU)         ? "CPU"
                    : (type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                          : "other";
    const char *spec = getenv("OCLCONV_DEVICE");
    printf("device:   %s\n          [%s, %u compute units] on %s, driver %s; OCLCONV_DEVICE=%s\n",
           oclconv_device_name(ctx), t, units, pname, driver, spec && *spec ? spec : "(unset)");
}

static void print_legend(const settings *S)
{
    double mp = (double)S->width * S->height / 1e6;
    printf("\nLegend (MP/s: megapixels a second, higher is better; a %dx%d image is %.2f MP)\n",
           S->width, S->height, mp);
    printf("  e2e       wall clock around oclconv_apply, host memory in and out: the fastest of up "
           "to %d timed\n"
           "            runs after one full-size warm-up.  A cell stops after %.3g s, or after "
           "one run over\n"
           "            %.3g s; runs predicted over %.3g s get no warm-up (their kernels are built "
           "beforehand)\n",
           S->runs, S->cell_budget, S->slow_limit, S->warmup_limit);
    printf("  kern      the device time of the calls' kernels: oclconv_last_kernel_seconds(); "
           "with pinned\n"
           "            images, of a call right after each in one band (OCLCONV_BANDS=1): the "
           "whole image's\n"
           "  -         the path returned OCLCONV_E_UNSUPPORTED for this filter on this device\n");
    printf("  slow      not run: a %dx%d probe predicted over %.3g s for one run; no path gets "
           "faster as\n"
           "            its filter grows, so the larger radii of that filter kind are skipped "
           "too\n",
           S->probe, S->probe, S->slow_limit);
    printf("  ~         AUTO was predicted over %.3g s a run: scaled from the %dx%d probe, not "
           "measured\n",
           S->estimate_limit, S->probe, S->probe);
    printf("  !         the output differs from the reference (OpenCV's, else the first oclconv "
           "output) by\n"
           "            more than rounding (u8: 1, or 4 beside OpenCV's 8-bit GaussianBlur, whose "
           "taps have\n"
           "            8 fractional bits; f32: 1e-3); err: the call failed.  Both come with a "
           "note\n");
    printf("  auto path the path AUTO took (oclconv_last_method)\n"
           "  roofline  the lower of the device's copy rate for these bytes and its fp32 rate "
           "over the\n"
           "            filter's fewest multiply-adds a pixel (2-D: C(2r+1)^2, separable: "
           "2C(2r+1), box: 4C);\n"
           "            %% = AUTO kern / roofline\n");
    printf("  OpenCV    cv::GaussianBlur, filter2D, sepFilter2D, blur with BORDER_REPLICATE, same "
           "depth in\n"
           "            and out, timed like e2e in this process; auto/OpenCV = AUTO e2e MP/s / "
           "OpenCV MP/s\n");
    printf("  filters   gauss: oclconv_filter_gaussian(r/3, 0, r, r); rand2d: (2r+1)^2 seeded "
           "random weights\n"
           "            in [-0.25, 1) scaled to sum 1; sep: seeded random row and column taps "
           "in [0.05, 1)\n"
           "            scaled to sum 1; box: oclconv_filter_box(r, r).  Images are seeded "
           "noise\n");
}

static void print_ratio_pair(const char *what, const cell *lo, const cell *hi, double linear)
{
    printf("  %s: ", what);
    if (!has_time(lo) || !has_time(hi)) {
        printf("n/a\n");
        return;
    }
    const char *est = lo->state == CELL_ESTIMATED || hi->state == CELL_ESTIMATED ? "~" : "";
    if (lo->kern > 0 && hi->kern > 0)
        printf("kern %s%.2fx, ", est, hi->kern / lo->kern);
    printf("e2e %s%.2fx", est, hi->e2e / lo->e2e);
    if (linear > 0)
        printf(" (linear in sigma: %.1fx)", linear);
    printf("\n");
}

static void print_cold(const cold_result cold[2])
{
    for (int i = 0; i < 2; i++) {
        const cold_result *c = &cold[i];
        const char *what =
            i == 0 ? "cold start, driver caches empty:" : "cold start, driver caches warm: ";
        if (!c->ok) {
            printf("%s failed: %s\n", what, c->error);
            continue;
        }
        printf("%s %.0f ms from process start to the first 4K RGBA8 gauss r3 image\n"
               "    = start to main() %.1f ms + oclconv_create %.0f ms + first apply %.0f ms (%s "
               "path, %zu program%s built)\n",
               what, c->pre_main_ms + c->create_ms + c->first_ms, c->pre_main_ms, c->create_ms,
               c->first_ms, c->method, c->built_first, c->built_first == 1 ? "" : "s");
    }
    printf("    (each in a fresh process: this program run with --cold; POCL_CACHE_DIR and "
           "CUDA_CACHE_PATH\n"
           "    point at an empty folder for the first and at what it left for the second; the "
           "fill of the\n"
           "    test image is excluded)\n");
    if (cold[1].ok || cold[0].ok) {
        const cold_result *c = cold[1].ok ? &cold[1] : &cold[0];
        printf("programs built by a second gauss r3 with a new sigma: %zu (%s); its apply took "
               "%.0f ms\n",
               c->built_second, c->built_second == 0 ? "ok, must be 0" : "WRONG, must be 0",
               c->second_ms);
    }
}

/* Every format and case at one image size, then the summary for it. */
static int run_size(bench *b, const settings *S, int quick)
{
    b->S = S;
    memset(&b->total, 0, sizeof b->total);
    b->total.min_ratio = INFINITY;
    printf("\nimages:   %dx%d, CLAMP border (OpenCV BORDER_REPLICATE); Gaussian sigma = r/3\n",
           S->width, S->height);
    if (quick)
        printf("QUICK:    %dx%d instead of 3840x2160, %d of the 15 cases a format, at most %d "
               "timed runs a cell\n",
               S->width, S->height, b->ncases, S->runs);
    fflush(stdout);
    format_summary sums[FORMAT_COUNT];
    memset(sums, 0, sizeof sums);
    for (int fi = 0; fi < FORMAT_COUNT; fi++)
        if (run_format(b, &formats[fi], &sums[fi]) != 0)
            return 1;

    printf("\n== Summary, %dx%d ==\n", S->width, S->height);
    if (b->total.count > 0)
        printf("auto/OpenCV, end to end: geometric mean %.2fx over %d cases%s (target: 1.5x)\n"
               "                         minimum %.2fx (%s)\n",
               exp(b->total.log_sum / b->total.count), b->total.count,
               b->total.estimated ? " (~: some estimated)" : "", b->total.min_ratio,
               b->total.min_where);
    else
        printf("auto/OpenCV: n/a (OpenCV not built in)\n");
    for (int fi = 0; fi < FORMAT_COUNT; fi++) {
        printf("%s, time ratios:\n", formats[fi].name);
        print_ratio_pair("box path (running sums), box r31 / box r1 (target: about 1)",
                         &sums[fi].sums_lo, &sums[fi].sums_hi, 0);
        print_ratio_pair("AUTO, box r31 / box r1 (r1 may take a faster path)", &sums[fi].box_lo,
                         &sums[fi].box_hi, 0);
        const format_summary *fs = &sums[fi];
        int rl = 0, rh = 0;
        for (int i = 0; i < b->ncases; i++)
            if (b->cases[i].c.k == GAUSS) {
                if (!rl)
                    rl = b->cases[i].c.r;
                rh = b->cases[i].c.r;
            }
        if (rh > rl) {
            char what[64];
            snprintf(what, sizeof what, "AUTO, gauss r%d / gauss r%d", rh, rl);
            print_ratio_pair(what, &fs->gauss_lo, &fs->gauss_hi, (double)rh / rl);
        }
    }
    return 0;
}

/* ====== Main ============================================================ */
static void usage(FILE *f)
{
    fprintf(f, "usage: bench [--quick] [--size WxH]... [--commit ID] [--verbose]\n"
               "  --quick      1920x1080 images, 6 of the 15 cases a format, at most 3 runs a "
               "cell\n"
               "  --commit ID  the commit to print (make bench passes git rev-parse --short "
               "HEAD)\n"
               "  --size WxH   the image size (may repeat); default 3840x2160, and 7680x4320 "
               "too on devices\n"
               "               that are not CPUs\n"
               "  --verbose    each probe's time and prediction on stderr\n"
               "The device is oclconv_create(NULL)'s: set OCLCONV_DEVICE to choose another.\n");
}

int main(int argc, char **argv)
{
    bench_start = now();
    const char *commit = "unknown";
    int quick = 0, sizes[MAX_SIZES][2], nsizes = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cold") == 0 && i + 1 < argc)
            return cold_child(argv[i + 1]);
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--verbose") == 0)
            verbose = 1;
        else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc && nsizes < MAX_SIZES) {
            char end = 0;
            if (sscanf(argv[++i], "%dx%d%c", &sizes[nsizes][0], &sizes[nsizes][1], &end) != 2 ||
                sizes[nsizes][0] < 64 || sizes[nsizes][1] < 64) {
                fprintf(stderr, "bench: --size wants WxH, each at least 64: %s\n", argv[i]);
                return 2;
            }
            nsizes++;
        }
        else if (strcmp(argv[i], "--commit") == 0 && i + 1 < argc)
            commit = *argv[++i] ? argv[i] : "unknown";
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    const settings *S = quick ? &quick_settings : &full_settings;
    deadline = bench_start + S->total_budget;
    bench b;
    memset(&b, 0, sizeof b);
    b.S = S;
    b.total.min_ratio = INFINITY;
    const bench_case *cases = quick ? quick_cases : full_cases;
    b.ncases = quick ? (int)(sizeof quick_cases / sizeof quick_cases[0])
                     : (int)(sizeof full_cases / sizeof full_cases[0]);
    find_paths();

    char date[64];
    time_t t = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
    int v = oclconv_version_number();
    printf("oclconv bench: library %d.%d.%d, commit %s, %s\n", v / 10000, v / 100 % 100,
           v % 100, commit, date);
    fflush(stdout);

    /* The cold start first, before this process touches OpenCL. */
    cold_result cold[2];
    memset(cold, 0, sizeof cold);
    char cache[] = "/tmp/oclconv-bench-XXXXXX";
    if (mkdtemp(cache)) {
        char sub[64];
        snprintf(sub, sizeof sub, "%s/pocl", cache);
        mkdir(sub, 0700);
        snprintf(sub, sizeof sub, "%s/cuda", cache);
        mkdir(sub, 0700);
        cold_start(argv[0], cache, &cold[0]); /* the caches empty */
        cold_start(argv[0], cache, &cold[1]); /* what the first left */
        remove_tree(cache);
    } else {
        snprintf(cold[0].error, sizeof cold[0].error, "no temporary folder: %s", strerror(errno));
        cold[1] = cold[0];
    }

    oclconv_status s = oclconv_create(NULL, &b.ctx);
    if (s != OCLCONV_OK) {
        fprintf(stderr, "bench: no context: %s\n%s\n", oclconv_strerror(s), oclconv_errmsg(NULL));
        return 1;
    }
    print_device(b.ctx);
    cl_bool unified = CL_TRUE;
    clGetDeviceInfo(oclconv_cl_device(b.ctx), CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified,
                    &unified, NULL);
    if (!unified)
        host_ctx = b.ctx;
    printf("host:     %s\n", host_ctx ? "images in pinned memory from oclconv_host_alloc(); e2e "
                                         "includes both DMA transfers, in bands of rows"
                                       : "images in ordinary memory, which the device shares "
                                         "(zero-copy)");
#ifdef OCLCONV_BENCH_OPENCV
    printf("peer:     %s, on this machine's CPU\n", ocvpeer_describe());
#else
    printf("peer:     OpenCV not built in (pkg-config finds no opencv4): its columns say n/a\n");
#endif
    b.flops = fp32_rate(b.ctx);
    if (b.flops > 0)
        printf("fp32:     %.1f GFLOP/s, the best launch of a mad() kernel (the roofline's "
               "compute side)\n",
               b.flops / 1e9);
    else
        printf("fp32:     not measured; the roofline is the copy rate alone\n");
    const char *env_method = getenv("OCLCONV_METHOD");
    if (env_method && *env_method)
        printf("note:     OCLCONV_METHOD=%s is set: the auto column runs that path\n", env_method);
    b.cases = calloc((size_t)b.ncases, sizeof *b.cases);
    if (!b.cases)
        return 1;
    for (int i = 0; i < b.ncases; i++)
        if (case_make(&cases[i], &b.cases[i]) != 0)
            return 1;
    /* The sizes: --size, else the settings' own, and 8K on devices that are
     * not CPUs (where 4K images take a fraction of a millisecond). */
    if (nsizes == 0) {
        sizes[nsizes][0] = S->width;
        sizes[nsizes++][1] = S->height;
        cl_device_type type = 0;
        clGetDeviceInfo(oclconv_cl_device(b.ctx), CL_DEVICE_TYPE, sizeof type, &type, NULL);
        if (!quick && !(type & CL_DEVICE_TYPE_CPU)) {
            sizes[nsizes][0] = 7680;
            sizes[nsizes++][1] = 4320;
        }
    }
    for (int i = 0; i < nsizes; i++) {
        settings at_size = *S;
        at_size.width = sizes[i][0];
        at_size.height = sizes[i][1];
        if (run_size(&b, &at_size, quick) != 0)
            return 1;
    }
    print_legend(S);
    printf("\n");
    print_cold(cold);
    double total_s = now() - bench_start;
    printf("bench time: %.0f s%s\n", total_s,
           now() > deadline ? " (past its time budget: the last cells ran once, no warm-up)" : "");

    for (int i = 0; i < b.ncases; i++)
        case_free(&b.cases[i]);
    free(b.cases);
    oclconv_destroy(b.ctx);
    return 0;
}
