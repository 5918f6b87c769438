/*
 * What the bench measures and how: clocks, seeded images, the ways to run a
 * case (oclconv, and OpenCV when built in), and the timing of one cell
 * with its check against the reference.
 */
#include "bench.h"
#ifdef OCLCONV_BENCH_OPENCV
#include "opencv_peer.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ====== Clocks, random numbers, images ================================= */
double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t rng_state;

void rng_seed(uint64_t seed)
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
double rng_uniform(double lo, double hi)
{
    return lo + (hi - lo) * (double)(rng_next() >> 11) * 0x1p-53;
}

static size_t type_size(oclconv_type t)
{
    return t == OCLCONV_U8 ? 1 : t == OCLCONV_U16 ? 2 : 4;
}

size_t image_bytes(const oclconv_image *img)
{
    return (size_t)img->width * (size_t)img->height * (size_t)img->channels *
           type_size(img->type);
}

oclconv_context *host_ctx;

int image_alloc(oclconv_image *img, int width, int height, int channels, oclconv_type type)
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

void image_free(oclconv_image *img)
{
    if (host_ctx)
        oclconv_host_free(host_ctx, img->data);
    else
        free(img->data);
    img->data = NULL;
}

/* Noise: every byte of u8 pixels random, f32 pixels uniform in [0, 1). */
void image_fill(oclconv_image *img, uint64_t seed)
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

/* ====== Runners: one way to compute a case ============================== */
int run_oclconv(runner *r, const oclconv_image *src, oclconv_image *dst, run_info *info)
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
    info->measured = oclconv_last_choice(r->ctx) == OCLCONV_CHOICE_MEASURED;
    return 0;
}

#ifdef OCLCONV_BENCH_OPENCV
int run_opencv(runner *r, const oclconv_image *src, oclconv_image *dst, run_info *info)
{
    const case_data *cd = r->cd;
    int n = 2 * cd->c.r + 1, e = -1;
    switch (cd->c.k) {
    case GAUSS: e = ocvpeer_gaussian(src, dst, n, cd->sigma); break;
    case RAND2D:
    case DISC: e = ocvpeer_filter2d(src, dst, cd->k2d, n, n); break;
    case SEP: e = ocvpeer_sep_filter2d(src, dst, cd->row, n, cd->col, n); break;
    case BOX: e = ocvpeer_blur(src, dst, n); break;
    }
    info->kern = 0;
    info->compiled = 0;
    info->took = OCLCONV_METHOD_AUTO;
    info->measured = 0;
    if (e != 0) {
        snprintf(r->err, sizeof r->err, "OpenCV: %s", ocvpeer_errmsg());
        return RUN_PEER_FAILED;
    }
    return 0;
}
#endif

/* ====== Measuring one cell ============================================== */
double deadline;
int verbose;

static char notes[16][512];
static int note_count, notes_dropped;

void add_note(const char *fmt_label, const char *what, const char *detail)
{
    if (note_count >= 16) {
        notes_dropped++;
        return;
    }
    snprintf(notes[note_count++], sizeof notes[0], "%s, %s: %s", fmt_label, what, detail);
}

void clear_notes(void)
{
    note_count = notes_dropped = 0;
}

void print_notes(void)
{
    for (int i = 0; i < note_count; i++)
        printf("  note: %s\n", notes[i]);
    if (notes_dropped)
        printf("  note: %d more notes left out\n", notes_dropped);
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
void measure(runner *r, image_set *im, const settings *S, int estimate, cell *c)
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
    /* AUTO always has its warm-up, past the bench's budget too: its first
     * call at a size may calibrate (src/calibrate.c), timing paths it has
     * built already, and a lone timed run would then time the calibration. */
    int auto_cell = r->run == run_oclconv && r->method == OCLCONV_METHOD_AUTO;
    if (auto_cell || (predicted <= S->warmup_limit && !late)) {
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
        c->measured = info.measured;
        if (late || t > S->slow_limit || now() - start + t > S->cell_budget)
            break;
    }
    c->state = CELL_OK;
    c->runs = n;
    c->e2e = fastest(e2e, n);
    c->kern = fastest(kern, n);
}

/* Compares the cell's output with the reference, or makes it the reference. */
void check_output(image_set *im, const case_data *cd, cell *c, int is_opencv,
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
