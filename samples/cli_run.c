#include "cli_run.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_read_ahead.h"
#include "cli_write_behind.h"
#include "output_file.h"
#include "png_io.h"

typedef struct {
    const cli_options *opt;
    oclconv_context *ctx;
    oclconv_filter *filter;
    int fw, fh;
    double weight_sum;
    int zero_sum;       /* weights sum to 0: derivatives */
    oclconv_filter *alpha_filter; /* for images with alpha: the weights / alpha_norm */
    double alpha_norm;
    int batch;          /* -o DIR */
    int bar;            /* draw a progress bar on stderr */
    int total, done, failed;
    oclconv_method method;  /* the path of the file's (colour) filtering */
    oclconv_choice choice;  /* and how AUTO chose it */
    double kernel_seconds;  /* device time of the file's kernels */
} run_state;

static void clear_bar(const run_state *r)
{
    if (r->bar)
        fputs("\r\033[K", stderr);
}

static void draw_bar(const run_state *r, const char *name)
{
    enum { WIDTH = 30 };
    char bar[WIDTH + 1];
    int filled = r->total ? r->done * WIDTH / r->total : WIDTH;
    if (!r->bar)
        return;
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[WIDTH] = '\0';
    fprintf(stderr, "\r[%s] %d/%d %.36s\033[K", bar, r->done, r->total, name);
    fflush(stderr);
}

/* Every failure is one line naming the file. */
__attribute__((format(printf, 3, 4)))
static int file_error(run_state *r, const char *path, const char *fmt, ...)
{
    va_list ap;
    clear_bar(r);
    fprintf(stderr, "%s: %s: ", cli_program, path);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return -1;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The value of full intensity (and of opaque alpha).  Float pictures (from
 * TIFF) are taken to span 0 to 1, as float TIFFs conventionally do; values
 * outside stay as they are. */
static double unit_max(oclconv_type t)
{
    return t == OCLCONV_F32 ? 1.0 : t == OCLCONV_U16 ? 65535.0 : 255.0;
}

static double get_value(const oclconv_image *img, size_t i)
{
    switch (img->type) {
    case OCLCONV_F32: return ((const float *)img->data)[i];
    case OCLCONV_U16: return ((const uint16_t *)img->data)[i];
    default: return ((const uint8_t *)img->data)[i];
    }
}

/* Rounds half to even and saturates, as the library does for integers;
 * floats are stored as they come, as the library stores them. */
static void put_value(oclconv_image *img, size_t i, double v)
{
    double hi = unit_max(img->type);
    if (img->type == OCLCONV_F32) {
        ((float *)img->data)[i] = (float)v;
        return;
    }
    v = nearbyint(v);
    v = v > 0 ? (v < hi ? v : hi) : 0; /* NaN too becomes 0 */
    if (img->type == OCLCONV_U16)
        ((uint16_t *)img->data)[i] = (uint16_t)v;
    else
        ((uint8_t *)img->data)[i] = (uint8_t)v;
}

/* Says in one line why a call on the context failed; with --verbose the
 * whole detail (a compiler's build log) comes first, as it is. */
static void library_failure(const run_state *r, oclconv_status st, char *why, size_t why_size)
{
    char detail[400];
    const char *msg = oclconv_errmsg(r->ctx);
    if (r->opt->verbose && strchr(msg, '\n')) {
        clear_bar(r);
        fprintf(stderr, "%s\n", msg);
    }
    snprintf(why, why_size, "%s: %s", oclconv_strerror(st), cli_one_line(msg, detail, sizeof detail));
}

/* Colour with alpha, filtered premultiplied (the last channel is alpha).
 * In float: p = c * a / max for colour, a for alpha; the library filters p
 * and a with scale 1, delta 0 and the weights divided by N (r->alpha_norm,
 * see prepare_filter()), giving P / N and A / N.  Then in double, with S
 * the sum of the weights:
 *   alpha' = A / S                 (the weights scaled to sum to 1)
 *   c'     = scale * P * max / alpha' + delta   (0 where alpha' <= 0)
 * so an opaque region comes out exactly as without alpha.  For weights that
 * sum to 0 there is no alpha to divide by: c' = scale * P + delta and alpha
 * stays.
 * The constant border means every straight channel, alpha too, is V
 * outside: premultiplied colour V * V / max, alpha V.  The filter being
 * linear, the image is filtered with a border of 0, and V * V / max (V for
 * alpha) times the filtered border alone, a zero image whose border is 1,
 * is added in double, where V * V / max cannot overflow. */
static int filter_premultiplied(run_state *r, oclconv_image *img, const oclconv_options *user,
                                char *why, size_t why_size)
{
    const double amax = unit_max(img->type), norm = r->alpha_norm;
    const int ch = img->channels, cc = ch - 1;
    const size_t n = (size_t)img->width * (size_t)img->height;
    const double v = user->border_value, vc = v * (v / amax);
    const int need_alpha = !r->zero_sum;
    const int constant = user->border == OCLCONV_BORDER_CONSTANT && v != 0;
    float *buf = malloc(n * (size_t)ch * sizeof *buf);
    float *outside = constant ? calloc(n, sizeof *outside) : NULL;
    oclconv_image fimg = {buf, img->width, img->height, ch, OCLCONV_F32, 0};
    oclconv_image bimg = {outside, img->width, img->height, 1, OCLCONV_F32, 0};
    oclconv_options o = *user;
    oclconv_status st = OCLCONV_OK;
    int rc = -1;

    if (!buf || (constant && !outside)) {
        snprintf(why, why_size, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const double a = get_value(img, i * (size_t)ch + (size_t)cc);
        for (int k = 0; k < cc; k++)
            buf[i * (size_t)ch + (size_t)k] =
                (float)(get_value(img, i * (size_t)ch + (size_t)k) * (a / amax));
        buf[i * (size_t)ch + (size_t)cc] = (float)a;
    }

    o.scale = 1;
    o.delta = 0;
    o.border_value = 0;
    st = oclconv_apply(r->ctx, &fimg, &fimg, r->alpha_filter, &o);
    if (st == OCLCONV_OK) {
        r->method = oclconv_last_method(r->ctx);
        r->choice = oclconv_last_choice(r->ctx);
        r->kernel_seconds += oclconv_last_kernel_seconds(r->ctx);
        if (constant) {
            o.border_value = 1;
            st = oclconv_apply(r->ctx, &bimg, &bimg, r->alpha_filter, &o);
            r->kernel_seconds += oclconv_last_kernel_seconds(r->ctx);
        }
    }
    if (st != OCLCONV_OK) {
        library_failure(r, st, why, why_size);
        goto out;
    }

    for (size_t i = 0; i < n; i++) {
        const size_t at = i * (size_t)ch;
        const double b = constant ? outside[i] : 0;
        if (!need_alpha) {
            for (int k = 0; k < cc; k++)
                put_value(img, at + (size_t)k,
                          user->scale * (((double)buf[at + (size_t)k] + vc * b) * norm) +
                              user->delta);
            continue;
        }
        const double a = ((double)buf[at + (size_t)cc] + v * b) * norm / r->weight_sum;
        for (int k = 0; k < cc; k++) {
            const double p = ((double)buf[at + (size_t)k] + vc * b) * norm;
            put_value(img, at + (size_t)k, a > 0 ? user->scale * p * amax / a + user->delta : 0);
        }
        put_value(img, at + (size_t)cc, a);
    }
    rc = 0;
out:
    free(outside);
    free(buf);
    return rc;
}

/* Filters img in place. */
static int filter_image(run_state *r, oclconv_image *img, char *why, size_t why_size)
{
    oclconv_options o = r->opt->conv;
    /* Mid-grey: half of unit_max(), rounded up for integers as is usual. */
    if (!r->opt->delta_given && r->zero_sum)
        o.delta = img->type == OCLCONV_F32   ? 0.5f
                  : img->type == OCLCONV_U16 ? 32768.0f
                                             : 128.0f;
    if (r->opt->premultiply && (img->channels == 2 || img->channels == 4))
        return filter_premultiplied(r, img, &o, why, why_size);

    oclconv_status st = oclconv_apply(r->ctx, img, img, r->filter, &o);
    if (st != OCLCONV_OK) {
        library_failure(r, st, why, why_size);
        return -1;
    }
    r->method = oclconv_last_method(r->ctx);
    r->choice = oclconv_last_choice(r->ctx);
    r->kernel_seconds += oclconv_last_kernel_seconds(r->ctx);
    return 0;
}

/* Writes pic to a temporary file beside `out`, then renames it into place. */

static int ensure_context(run_state *r)
{
    if (r->ctx)
        return 0;
    char detail[600];
    oclconv_status st = oclconv_create(r->opt->device, &r->ctx);
    if (st != OCLCONV_OK) {
        clear_bar(r);
        fprintf(stderr, "%s: no usable OpenCL device: %s: %s\n", cli_program, oclconv_strerror(st),
                cli_one_line(oclconv_errmsg(NULL), detail, sizeof detail));
        return -1;
    }
    if (r->opt->calibrate != OCLCONV_CALIBRATE_DEFAULT)
        oclconv_set_calibration(r->ctx, r->opt->calibrate, NULL); /* a valid mode: cannot fail */
    if (r->opt->verbose)
        fprintf(stderr, "device: %s\n", oclconv_device_name(r->ctx));
    return 0;
}

static const char *layout_name(int channels)
{
    static const char *const names[] = {"?", "gray", "gray+alpha", "RGB", "RGBA"};
    return names[channels >= 1 && channels <= 4 ? channels : 0];
}

/* A file filtered and handed to be written, with what its report needs. */
typedef struct {
    int index; /* -1: none */
    const char *in, *out;
    int width, height, channels;
    oclconv_type type;
    oclconv_method method;
    oclconv_choice choice;
    double kernel_seconds, t0, filter_ms;
    size_t compiled;
    int status; /* written in place (no writer thread): its result */
    char why[600];
} sent_file;

/* Waits for the write of the file sent last and reports it: its error
 * line, or with --verbose its line, or in a batch without the bar its
 * name.  Counts a failed write. */
static void settle(run_state *r, write_behind *wb, sent_file *f)
{
    if (f->index < 0)
        return;
    int rc = wb ? write_behind_take(wb, f->why, sizeof f->why) : f->status;
    if (rc) {
        file_error(r, f->out, "%s", f->why);
        r->failed++;
    } else if (r->opt->verbose) {
        int alpha = f->channels % 2 == 0;
        clear_bar(r);
        if (r->batch)
            fprintf(stderr, "[%d/%d] ", f->index + 1, r->total);
        fprintf(stderr,
                "%s -> %s: %dx%d %s %s%s, %s %dx%d, %s path%s, kernels %.2f ms, "
                "filter %.1f ms%s, total %.1f ms\n",
                f->in, f->out, f->width, f->height, layout_name(f->channels),
                f->type == OCLCONV_F32 ? "float" : f->type == OCLCONV_U16 ? "16-bit" : "8-bit",
                alpha ? (r->opt->premultiply ? " (premultiplied)" : " (straight)") : "",
                cli_filter_names[r->opt->kernel || r->opt->kernel_file ? FILTER_CUSTOM
                                                                   : r->opt->filter],
                r->fw, r->fh, oclconv_method_name(f->method),
                f->choice == OCLCONV_CHOICE_MEASURED ? " (measured)"
                : f->choice == OCLCONV_CHOICE_RULE   ? " (by rule)"
                                                     : "",
                f->kernel_seconds * 1e3, f->filter_ms, f->compiled ? " incl. compiling" : "",
                (seconds_now() - f->t0) * 1e3);
    } else if (r->batch && !r->bar) {
        fprintf(stderr, "[%d/%d] %s -> %s\n", f->index + 1, r->total, f->in, f->out);
    }
    f->index = -1;
}

/* Filters file i, read into *res, while the one sent before is written;
 * then reports that one and sends this one to be written (*sent).
 * @return 1 when sent, -1 when the file failed, -2 when nothing more can
 * run (no device). */
static int process_file(run_state *r, write_behind *wb, sent_file *sent, int i, const char *in,
                        const char *out, read_result *res)
{
    png_io_picture pic = res->pic;
    char why[600];
    double t0 = seconds_now();
    int rc = 0;

    if (res->status == 0 && ensure_context(r)) {
        png_io_free(&pic);
        settle(r, wb, sent);
        return -2;
    }
    sent_file f = {i, in, out, pic.image.width, pic.image.height, pic.image.channels,
                   pic.image.type, 0, 0, 0, t0, 0, 0, 0, ""};
    if (res->status == 0) {
        size_t built = oclconv_programs_built(r->ctx);
        r->kernel_seconds = 0;
        rc = filter_image(r, &pic.image, why, sizeof why);
        f.filter_ms = (seconds_now() - t0) * 1e3;
        f.compiled = oclconv_programs_built(r->ctx) - built;
        f.method = r->method;
        f.choice = r->choice;
        f.kernel_seconds = r->kernel_seconds;
    }
    settle(r, wb, sent); /* the lines in the files' order */
    if (res->status)
        return file_error(r, in, "%s", res->why);
    if (pic.warning[0]) {
        clear_bar(r);
        fprintf(stderr, "%s: %s: warning: %s\n", cli_program, in, pic.warning);
    }
    if (rc) {
        png_io_free(&pic);
        return file_error(r, in, "%s", why);
    }
    *sent = f;
    if (wb) {
        write_behind_put(wb, i, out, &pic);
    } else {
        sent->status = output_file_write(out, &pic, sent->why, sizeof sent->why);
        png_io_free(&pic);
    }
    return 1;
}

/* The writer thread's word that output i is done, for the reader. */
static void output_done(void *arg, int i)
{
    read_ahead_written(arg, i);
}

/* Marks inputs whose output name an earlier input already takes (-o DIR with
 * a/x.png and b/x.png): dup[i] is the earlier index, or -1. */
typedef struct {
    const char *name;
    int index;
} named;

static int compare_named(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

static int *find_duplicates(char **inputs, int n)
{
    named *v = malloc((size_t)n * sizeof *v);
    int *dup = malloc((size_t)n * sizeof *dup);
    if (!v || !dup) {
        free(v);
        free(dup);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        v[i].name = output_base_name(inputs[i]);
        v[i].index = i;
        dup[i] = -1;
    }
    qsort(v, (size_t)n, sizeof *v, compare_named);
    for (int i = 1; i < n; i++)
        if (strcmp(v[i].name, v[i - 1].name) == 0)
            dup[v[i].index] = dup[v[i - 1].index] >= 0 ? dup[v[i - 1].index] : v[i - 1].index;
    free(v);
    return dup;
}

/* What the run needs to know of r->filter: its size, the sum of its
 * weights, whether that is 0, and the filter for images with alpha.  Those
 * are filtered in float with the weights divided by a power of two N that
 * brings their sum (for weights summing to 0, the sum of their magnitudes)
 * between 1 and 2, where it is far from 1, so that no float sum of the
 * premultiplied image overflows, or loses its terms below a normal float,
 * however large or small the weights; N is put back in double.
 * @return 0, or -1 after saying why. */
static int prepare_filter(run_state *r)
{
    const double *w = oclconv_filter_weights(r->filter);
    double abs_sum = 0;
    char why[400];
    int e;

    oclconv_filter_size(r->filter, &r->fw, &r->fh);
    for (int i = 0; i < r->fw * r->fh; i++) {
        r->weight_sum += w[i];
        abs_sum += fabs(w[i]);
    }
    r->zero_sum = fabs(r->weight_sum) <= 1e-6 * abs_sum;
    if (r->opt->conv.border == OCLCONV_BORDER_NORMALIZE && r->zero_sum)
        return cli_usage_error("--border normalize needs a filter whose weights do not sum to 0");

    r->alpha_filter = r->filter;
    r->alpha_norm = 1;
    frexp(r->zero_sum ? abs_sum : fabs(r->weight_sum), &e);
    if (e >= -16 && e <= 16)
        return 0;
    r->alpha_norm = ldexp(1.0, e - 1);
    float *scaled = malloc((size_t)r->fw * (size_t)r->fh * sizeof *scaled);
    if (!scaled)
        return cli_usage_error("out of memory");
    for (int i = 0; i < r->fw * r->fh; i++)
        scaled[i] = (float)(w[i] / r->alpha_norm);
    oclconv_status st = oclconv_filter_create(r->fw, r->fh, scaled, &r->alpha_filter);
    free(scaled);
    if (st != OCLCONV_OK) {
        r->alpha_filter = r->filter;
        return cli_usage_error("cannot scale the filter for images with alpha: %s",
                               cli_one_line(oclconv_errmsg(NULL), why, sizeof why));
    }
    return 0;
}

/* Where each input goes: -o DIR, or OUTPUT (a folder takes the input's
 * name; "-" is standard output).  *dir is the folder that takes the inputs'
 * names, or NULL. */
static char **plan_outputs(const cli_options *o, int *n, const char **dir)
{
    int count = o->out_dir ? o->n_operands : 1;
    char **outs = calloc((size_t)count, sizeof *outs);
    struct stat st;
    if (!outs)
        return NULL;
    *dir = o->out_dir;
    if (!o->out_dir && strcmp(o->operands[1], "-") != 0 && stat(o->operands[1], &st) == 0 &&
        S_ISDIR(st.st_mode))
        *dir = o->operands[1];
    for (int i = 0; i < count; i++) {
        if (*dir)
            outs[i] = output_join_path(*dir, output_base_name(o->operands[i]));
        else
            outs[i] = strdup(o->operands[1]);
        if (!outs[i]) {
            while (i-- > 0)
                free(outs[i]);
            free(outs);
            return NULL;
        }
    }
    *n = count;
    return outs;
}

int cli_run(const cli_options *o)
{
    run_state r;
    char **outs = NULL;
    int *dup = NULL, *skip = NULL, n = 0, rc = EXIT_FILE_FAILED;
    read_ahead *ahead = NULL;
    write_behind *behind = NULL;
    const char *dir = NULL;

    memset(&r, 0, sizeof r);
    r.opt = o;
    if (cli_make_filter(o, &r.filter))
        return EXIT_USAGE;
    if (prepare_filter(&r)) {
        if (r.alpha_filter != r.filter)
            oclconv_filter_destroy(r.alpha_filter);
        oclconv_filter_destroy(r.filter);
        return EXIT_USAGE;
    }

    output_file_init(&(image_io_settings){o->png, o->quality});

    if (o->out_dir && mkdir(o->out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: %s: cannot make the folder: %s\n", cli_program, o->out_dir,
                strerror(errno));
        goto out;
    }
    outs = plan_outputs(o, &n, &dir);
    dup = o->out_dir ? find_duplicates(o->operands, n) : NULL;
    if (!outs || (o->out_dir && !dup)) {
        fprintf(stderr, "%s: out of memory\n", cli_program);
        goto out;
    }
    r.batch = o->out_dir != NULL;
    r.bar = r.batch && !o->verbose && isatty(STDERR_FILENO);
    r.total = n;
    skip = calloc((size_t)n, sizeof *skip);
    if (!skip) {
        fprintf(stderr, "%s: out of memory\n", cli_program);
        goto out;
    }
    for (int i = 0; i < n; i++)
        skip[i] = (dir && strcmp(o->operands[i], "-") == 0) || (dup && dup[i] >= 0);
    ahead = n > 1 ? read_ahead_start(o->operands, outs, skip, n) : NULL;
    behind = ahead ? write_behind_start(output_done, ahead) : NULL;
    sent_file sent = {.index = -1};
    for (int i = 0; i < n; i++) {
        int res;
        draw_bar(&r, output_base_name(o->operands[i]));
        if (dir && strcmp(o->operands[i], "-") == 0) {
            settle(&r, behind, &sent);
            res = file_error(&r, "-", "standard input has no file name to write under %s", dir);
        } else if (dup && dup[i] >= 0) {
            settle(&r, behind, &sent);
            res = file_error(&r, o->operands[i], "skipped: its output %s would replace that of %s",
                             outs[i], o->operands[dup[i]]);
        } else {
            read_result in;
            if (ahead)
                read_ahead_take(ahead, i, &in);
            else
                read_input(o->operands[i], outs[i], &in);
            res = process_file(&r, behind, &sent, i, o->operands[i], outs[i], &in);
        }
        if (ahead && (res != 1 || !behind))
            read_ahead_written(ahead, i);
        r.done++;
        if (res < 0)
            r.failed++;
        if (res == -2) {
            r.failed += n - r.done;
            break;
        }
    }
    settle(&r, behind, &sent);
    if (r.bar) {
        draw_bar(&r, "");
        fputc('\n', stderr);
    }
    if (r.batch && r.failed)
        fprintf(stderr, "%s: %d of %d files failed\n", cli_program, r.failed, n);
    rc = r.failed ? EXIT_FILE_FAILED : 0;
out:
    write_behind_stop(behind);
    read_ahead_stop(ahead);
    free(skip);
    for (int i = 0; outs && i < n; i++)
        free(outs[i]);
    free(outs);
    free(dup);
    if (r.alpha_filter != r.filter)
        oclconv_filter_destroy(r.alpha_filter);
    oclconv_filter_destroy(r.filter);
    oclconv_destroy(r.ctx);
    return rc;
}

