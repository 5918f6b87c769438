/* AUTO that measures: the path AUTO takes for a class of jobs (types,
 * channels, filter kind, radius band, image size band, border group and
 * kernel shapes) comes from timing the candidate paths on the device, once
 * a machine, remembered in a file a device under $XDG_CACHE_HOME/oclconv/
 * (src/calibration_file.c).  The rules of plan.c choose where nothing was
 * measured and stay the choice unless another path is clearly faster. */
#include "internal.h"
#include "calibration.h"
#include "path_rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Each candidate is run once to build it, then timed in up to this many
 * rounds, the best kept (a first calibration in a fresh process, the
 * 2-core Xeon through PoCL: with three rounds the separable bands of a
 * 4K f32 3x3 filter read 9.0 and 10.7 ms in 2 processes of 7, against 6
 * settled; five make such a streak rarer, not impossible); one past
 * SLOWER times the fastest after a round is not timed again.  The rules'
 * path stays unless another takes at most MARGIN of its time. */
#define TIMED_RUNS 5
#define SLOWER 1.5
#define MARGIN 0.92
#define PRUNE_S 0.002

typedef oclconv__calibration_entry entry;

static const char *const mode_names[] = {"", "on", "off", "stored", "fresh"};

/* The mode the context was given, else OCLCONV_CALIBRATE's, else ON. */
static oclconv_status current_mode(oclconv_context *ctx, oclconv_calibration *mode)
{
    *mode = ctx->calib_mode;
    if (*mode != OCLCONV_CALIBRATE_DEFAULT)
        return OCLCONV_OK;
    *mode = OCLCONV_CALIBRATE_ON;
    const char *env = getenv("OCLCONV_CALIBRATE");
    if (!env || !*env)
        return OCLCONV_OK;
    for (int m = OCLCONV_CALIBRATE_ON; m <= OCLCONV_CALIBRATE_FRESH; m++)
        if (strcmp(env, mode_names[m]) == 0) {
            *mode = (oclconv_calibration)m;
            return OCLCONV_OK;
        }
    return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG,
                         "OCLCONV_CALIBRATE=%s is not one of on, off, stored, fresh", env);
}

/* ---- the class of a job --------------------------------------------------- */
/* Radii 1-3 each, then bands of 4-5, 6-7, 8-11, 12-15, 16-23, ...; the
 * band's least radius. */
static int radius_band(int r)
{
    if (r <= 3)
        return r;
    int b = 4;
    while (b * 2 <= r)
        b *= 2;
    return r >= b + b / 2 ? b + b / 2 : b;
}

/* The calibration image's side for each size band (0.26, 2.1, 8.4 and
 * 33.5 megapixels: 4K's and 8K's sizes for the last two), and the bands'
 * upper bounds in pixels.  The last band is a GPU's only: there the
 * kernels' order changes past 4K (NVIDIA H200, f32 gray 31x31: the tiles
 * ahead on 2896², the buffer kernel 1.38x them at 8K), and its images
 * take milliseconds a call; a CPU would take seconds, and its 8K images
 * keep 4K's choice. */
static const int band_side[4] = {512, 1448, 2896, 5792};
static const double band_below[3] = {1 << 19, 1 << 22, 1 << 24};

static int size_band(const oclconv__job *job)
{
    double px = (double)job->dst->width * job->dst->height;
    return px < band_below[0]                      ? 0
           : px < band_below[1]                    ? 1
           : px < band_below[2] || job->cpu_shapes ? 2
                                                   : 3;
}

static void class_key(const oclconv__job *job, char *key, size_t size)
{
    static const char *const types[] = {"u8", "u16", "f32"};
    const oclconv_filter *f = job->filter;
    int box = f->row && oclconv__taps_equal(f->row, f->width) &&
              oclconv__taps_equal(f->col, f->height);
    oclconv_border b = job->opt.border;
    snprintf(key, size, "%s/%s-%s/c%d/%s/r%dx%d/%c/%s%s", job->cpu_shapes ? "cpu" : "gpu",
             types[job->src->type], types[job->dst->type], job->src->channels,
             box ? "box" : f->row ? "sep" : oclconv__runs_pay(f, 1, 0) ? "runs" : "2d",
             radius_band(f->width / 2),
             radius_band(f->height / 2), "smlx"[size_band(job)],
             b == OCLCONV_BORDER_NORMALIZE                                ? "normalize"
             : b == OCLCONV_BORDER_ZERO || b == OCLCONV_BORDER_CONSTANT ? "outside"
                                                                          : "fold",
             job->in_bands ? "/bands" : "");
}

/* ---- measuring -------------------------------------------------------------- */
/* The state of the call under way that the calibration's own calls must
 * not disturb (batches plan an image while the last one's kernels run). */
typedef struct {
    oclconv_method last_method;
    oclconv_choice last_choice;
    double last_kernel_seconds, banked_seconds;
    cl_event events[OCLCONV_MAX_EVENTS];
    int event_count;
    const cl_event *wait_list;
    cl_uint wait_count;
} call_state;

#define SWAP(type, a, b) \
    do {                  \
        type t_ = (a);    \
        (a) = (b);        \
        (b) = t_;         \
    } while (0)

/* Exchanges the call state in ctx with *s. */
static void swap_state(oclconv_context *ctx, call_state *s)
{
    SWAP(oclconv_method, ctx->last_method, s->last_method);
    SWAP(oclconv_choice, ctx->last_choice, s->last_choice);
    SWAP(double, ctx->last_kernel_seconds, s->last_kernel_seconds);
    SWAP(double, ctx->banked_seconds, s->banked_seconds);
    SWAP(int, ctx->kernel_event_count, s->event_count);
    SWAP(const cl_event *, ctx->wait_list, s->wait_list);
    SWAP(cl_uint, ctx->wait_count, s->wait_count);
    for (int i = 0; i < OCLCONV_MAX_EVENTS; i++)
        SWAP(cl_event, ctx->kernel_events[i], s->events[i]);
}

/* Puts the call under way aside, for a clean state. */
static void set_aside(oclconv_context *ctx, call_state *s)
{
    memset(s, 0, sizeof *s);
    swap_state(ctx, s);
}

/* Ends the calibration's calls and takes the call under way back. */
static void restore(oclconv_context *ctx, call_state *s)
{
    oclconv__forget_kernel_events(ctx, 0);
    swap_state(ctx, s);
    oclconv__clear_error(ctx);
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One call of path m on the calibration images: on a CPU device the whole
 * call, whose copies are the path's work too; elsewhere the kernels' time
 * (host transfers are the same for every path and would drown the
 * difference), or the whole call where the queue does not profile.
 * A negative time: the path cannot run this job. */
static double time_path(oclconv_context *ctx, const oclconv__job *job, oclconv_image *src,
                        oclconv_image *dst, oclconv_method m)
{
    oclconv_options opt = job->opt;
    opt.method = m;
    double t0 = seconds_now();
    if (oclconv__apply_host(ctx, src, NULL, dst, job->filter, &opt, 0) != OCLCONV_OK)
        return -1;
    double wall = seconds_now() - t0, kernels = ctx->last_kernel_seconds;
    return (ctx->facts.type & CL_DEVICE_TYPE_CPU) || !(kernels > 0) ? wall : kernels;
}

/* A calibration image like `like` in the type given, side by side pixels
 * of noise: in pinned memory where `pinned` (a device with memory of its
 * own then runs the call whole, as it runs a job not in bands), else
 * malloc's (a large one then goes in bands, as such jobs do). */
static int make_image(oclconv_context *ctx, oclconv_image *im, const oclconv_image *like,
                      oclconv_type type, int side, int pinned)
{
    im->width = im->height = side;
    im->channels = like->channels;
    im->type = type;
    im->stride = 0;
    size_t n = (size_t)side * (size_t)side * (size_t)like->channels;
    size_t bytes = n * oclconv__type_size(type);
    im->data = NULL;
    if (pinned && oclconv_host_alloc(ctx, bytes, &im->data) != OCLCONV_OK)
        return 0;
    if (!pinned && !(im->data = malloc(bytes)))
        return 0;
    uint32_t x = 2463534242u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        if (type == OCLCONV_U8)
            ((uint8_t *)im->data)[i] = (uint8_t)x;
        else if (type == OCLCONV_U16)
            ((uint16_t *)im->data)[i] = (uint16_t)x;
        else
            ((float *)im->data)[i] = (float)(x >> 8) / 16777216.0f;
    }
    return 1;
}

static void free_image(oclconv_context *ctx, oclconv_image *im, int pinned)
{
    if (pinned && im->data)
        oclconv_host_free(ctx, im->data);
    else
        free(im->data);
}

/* Times the candidate paths and writes the choice into e: the rules' path
 * unless another takes at most MARGIN of its time.  Each is first built
 * and run on a PROBE-pixel square (twice, in turns with the others, the
 * better kept), and one far slower there is not timed
 * at full size (a 97x97 2-D pass beside a box's running sums would take
 * seconds).  0 when nothing could be timed. */
static int measure(oclconv_context *ctx, const oclconv__job *job, entry *e)
{
    enum { MOST = 6, PROBE = 128, PRUNE = 4 };
    oclconv_method cand[MOST] = {job->method};
    int n = 1;
    static const oclconv_method all[] = {OCLCONV_METHOD_BOX, OCLCONV_METHOD_SEPARABLE,
                                         OCLCONV_METHOD_RUNS, OCLCONV_METHOD_FFT,
                                         OCLCONV_METHOD_BUFFER, OCLCONV_METHOD_TILED};
    /* On CPUs local memory is ordinary memory behind barriers: no tiles. */
    /* Nor transforms for separable filters, whose passes cost less. */
    for (int i = 0; i < MOST - job->cpu_shapes; i++)
        if (all[i] != job->method && !(all[i] == OCLCONV_METHOD_FFT && job->filter->row))
            cand[n++] = all[i];
    oclconv_image src[2] = {{0}}, dst[2] = {{0}};
    int side[2] = {PROBE, band_side[size_band(job)]}, ok = 1;
    int pinned = !job->in_bands && !ctx->facts.unified_memory;
    for (int k = 0; k < 2; k++)
        ok = ok && make_image(ctx, &src[k], job->src, job->src->type, side[k], pinned) &&
             make_image(ctx, &dst[k], job->dst, job->dst->type, side[k], pinned);
    call_state state;
    set_aside(ctx, &state);
    double best[MOST], fastest = INFINITY;
    for (int i = 0; i < n; i++) /* builds each */
        best[i] = ok && time_path(ctx, job, &src[0], &dst[0], cand[i]) >= 0 ? INFINITY : -1;
    for (int k = 0; k < 2; k++) /* then times it on the probe, in turns */
        for (int i = 0; i < n; i++) {
            double t = best[i] >= 0 ? time_path(ctx, job, &src[0], &dst[0], cand[i]) : -1;
            best[i] = t < 0 ? -1 : t < best[i] ? t : best[i];
            if (best[i] >= 0 && best[i] < fastest)
                fastest = best[i];
        }
    /* Pruned: four times the fastest on the probe, and over PRUNE_S there
     * (a second or more at full size).  Probe times under that are mostly
     * launches and unfilled cores, and say little of the full size (NVIDIA
     * H200: a 15x15 2-D filter's buffer kernel five times the tiles' on the
     * probe, a third of their time at 4K; PoCL: a 3x3 Gaussian's fused
     * bands four times the buffer kernel's, a third at 4K). */
    int left = 0;
    for (int i = 0; i < n; i++) {
        if (best[i] > PRUNE * fastest && best[i] > PRUNE_S)
            best[i] = -1;
        left += best[i] >= 0;
    }
    /* At full size the candidates take turns, a round each time: a CPU
     * that is still waking up (2-core Xeon, PoCL 3.1: a 4K u8 box r1's
     * bands 2-7x their settled time for their first ten calls or so) then
     * slows every candidate's first round, not all of the first one's runs.
     * One far behind the fastest after a round is not timed again. */
    int timing[MOST];
    for (int i = 0; i < n; i++) { /* a first call warms its caches */
        timing[i] = best[i] >= 0 && left > 1;
        if (timing[i] && time_path(ctx, job, &src[1], &dst[1], cand[i]) < 0)
            best[i] = -1, timing[i] = 0;
        else if (timing[i])
            best[i] = INFINITY;
    }
    for (int k = 0; k < TIMED_RUNS; k++) {
        fastest = INFINITY;
        for (int i = 0; i < n; i++) {
            if (timing[i]) {
                double t = time_path(ctx, job, &src[1], &dst[1], cand[i]);
                best[i] = t < 0 ? -1 : t < best[i] ? t : best[i];
                timing[i] = t >= 0;
            }
            if (best[i] >= 0 && best[i] < fastest)
                fastest = best[i];
        }
        for (int i = 0; i < n; i++)
            timing[i] = timing[i] && best[i] <= SLOWER * fastest;
    }
    int used = 0, w = 0;
    fastest = INFINITY;
    for (int i = 0; i < n; i++) {
        if (best[i] < 0)
            continue;
        used++;
        fastest = best[i] < fastest ? best[i] : fastest;
        w += snprintf(e->detail + w, sizeof e->detail - (size_t)w, "%s%s %.0fus", w ? " " : "",
                      oclconv_method_name(cand[i]), best[i] * 1e6);
        if ((size_t)w >= sizeof e->detail)
            w = (int)sizeof e->detail - 1;
    }
    restore(ctx, &state);
    for (int k = 0; k < 2; k++) {
        free_image(ctx, &src[k], pinned);
        free_image(ctx, &dst[k], pinned);
    }
    if (!used)
        return 0;
    /* The rules' path, unless another is clearly faster (or it failed). */
    double beat = best[0] >= 0 ? MARGIN * best[0] : INFINITY;
    e->method = cand[0];
    for (int i = 1; i < n; i++)
        if (best[i] >= 0 && best[i] == fastest && best[i] <= beat)
            e->method = cand[i];
    return 1;
}

oclconv_status oclconv__calibrated(oclconv_context *ctx, const oclconv__job *job,
                                   oclconv_method *m)
{
    *m = OCLCONV_METHOD_AUTO;
    oclconv_calibration mode;
    oclconv_status s = current_mode(ctx, &mode);
    if (s != OCLCONV_OK || mode == OCLCONV_CALIBRATE_OFF)
        return s;
    struct oclconv__calibration *c = ctx->calib;
    if (!c && !(c = ctx->calib = calloc(1, sizeof *c)))
        return OCLCONV_OK; /* the rules need no memory */
    if (!c->id)
        c->id = oclconv__calibration_identity(ctx, c->who, sizeof c->who);
    uint64_t id = c->id;
    char path[sizeof c->path] = "";
    int have_path = oclconv__calibration_path(ctx, id, path, sizeof path);
    if (!c->loaded || strcmp(path, c->path) != 0) {
        c->n = 0;
        if (have_path && mode != OCLCONV_CALIBRATE_FRESH)
            oclconv__calibration_read(c, path, id);
        snprintf(c->path, sizeof c->path, "%s", path);
        c->loaded = 1;
    }
    char key[OCLCONV_CALIBRATION_KEY_MAX];
    class_key(job, key, sizeof key);
    entry *e = oclconv__calibration_find(c, key);
    if (e && (e->measured_here || mode != OCLCONV_CALIBRATE_FRESH)) {
        *m = e->method;
        return OCLCONV_OK;
    }
    int stale = e != NULL; /* FRESH: a stored entry measured again */
    if (mode == OCLCONV_CALIBRATE_STORED || !(e = oclconv__calibration_add(c, key)))
        return OCLCONV_OK;
    if (!measure(ctx, job, e)) {
        if (!stale)
            c->n--; /* the one just added, last */
        return OCLCONV_OK;
    }
    e->measured_here = 1;
    *m = e->method;
    if (have_path)
        oclconv__calibration_write(c, path, id, c->who);
    return OCLCONV_OK;
}

void oclconv__calibration_free(oclconv_context *ctx)
{
    if (ctx->calib)
        free(ctx->calib->e);
    free(ctx->calib);
    free(ctx->calib_dir);
}

oclconv_status oclconv_set_calibration(oclconv_context *ctx, oclconv_calibration mode,
                                       const char *folder)
{
    if (!ctx)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG, "oclconv_set_calibration: context is NULL");
    oclconv__clear_error(ctx);
    if ((unsigned)mode > OCLCONV_CALIBRATE_FRESH)
        return oclconv__fail(ctx, OCLCONV_E_INVALID_ARG, "calibration mode %d is unknown", (int)mode);
    char *dir = NULL;
    if (folder && !(dir = strdup(folder)))
        return oclconv__fail(ctx, OCLCONV_E_NOMEM, "no memory for the folder's name");
    for (int k = 0; k < ctx->peer_count; k++)
        if (oclconv_set_calibration(ctx->peers[k], mode, folder) != OCLCONV_OK) {
            free(dir);
            return oclconv__fail(ctx, OCLCONV_E_NOMEM, "no memory for the folder's name");
        }
    free(ctx->calib_dir);
    ctx->calib_dir = dir;
    ctx->calib_mode = mode;
    if (ctx->calib)
        ctx->calib->loaded = 0;
    return OCLCONV_OK;
}

oclconv_choice oclconv_last_choice(const oclconv_context *ctx)
{
    return ctx ? ctx->last_choice : OCLCONV_CHOICE_NONE;
}
