/*
 * The oclconv command end to end: it writes PNGs of every colour type and bit
 * depth with libpng, runs the command on them, reads the outputs back and
 * compares them with the CPU reference; then the failures: bad files, bad
 * folders, bad options, a batch with one bad file.
 *
 * The command is $OCLCONV_CLI, else $OCLCONV_BUILD/oclconv, else
 * build/oclconv; scratch files go to $OCLCONV_BUILD/tests/cli-tmp.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel_text.h"
#include "png_io.h"
#include "reference.h"
#include "test.h"
#include "util.h"

enum { W = 23, H = 17 }; /* odd sizes, smaller than some filters are wide */

static char cli_path[1024];
static char tmp[1024];
static char cli_out[1 << 16], cli_err[1 << 16];

/* ====== Files and processes ========================================== */

/* A path under the scratch folder, in one of 32 rotating buffers: enough
 * for the arguments of one command. */
__attribute__((format(printf, 1, 2)))
static const char *at(const char *fmt, ...)
{
    static char bufs[32][1200];
    static int next;
    char *b = bufs[next++ % 32];
    int n = snprintf(b, sizeof bufs[0], "%s/", tmp);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b + n, sizeof bufs[0] - (size_t)n, fmt, ap);
    va_end(ap);
    return b;
}

_Noreturn static void hard_error(const char *what, const char *path)
{
    fprintf(stderr, "%s: %s: %s\n", what, path, strerror(errno));
    exit(TEST_HARD_ERROR);
}

static void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        chmod(path, 0755);
        while (d && (e = readdir(d)) != NULL) {
            char sub[1200];
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            remove_tree(sub);
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void make_dir(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        hard_error("mkdir", path);
}

/* Names in a folder; *hidden counts those starting with '.' (temporary
 * files the command failed to remove). */
static int count_entries(const char *dir, int *hidden)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    *hidden = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        if (e->d_name[0] == '.')
            (*hidden)++;
    }
    closedir(d);
    return n;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    unsigned char *buf;
    long n;
    if (!fp || fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET))
        hard_error("read", path);
    buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, fp) != (size_t)n)
        hard_error("read", path);
    fclose(fp);
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

static void write_all(const char *path, const void *data, size_t len)
{
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(data, 1, len, fp) != len || fclose(fp) != 0)
        hard_error("write", path);
}

static void slurp(const char *path, char *buf, size_t size)
{
    FILE *fp = fopen(path, "rb");
    size_t n = fp ? fread(buf, 1, size - 1, fp) : 0;
    buf[n] = '\0';
    if (fp)
        fclose(fp);
}

enum { MAX_ARGS = 64 };

/* Runs the command with `n` arguments; its stdout and stderr land in cli_out
 * and cli_err.  @return its exit status, or 128 + the signal that ended it. */
static int cli_argv(int n, const char *const *args)
{
    char *argv[MAX_ARGS + 2];
    int argc = 0, status;
    const char *out_path, *err_path;
    pid_t pid;

    argv[argc++] = strdup(cli_path);
    for (int i = 0; i < n && i < MAX_ARGS; i++)
        argv[argc++] = strdup(args[i]);
    argv[argc] = NULL;
    out_path = at("stdout.txt"); /* after the copies: args may be at() buffers */
    err_path = at("stderr.txt");

    fflush(NULL);
    pid = fork();
    if (pid < 0)
        hard_error("fork", cli_path);
    if (pid == 0) {
        if (!freopen(out_path, "w", stdout) || !freopen(err_path, "w", stderr))
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    if (waitpid(pid, &status, 0) < 0)
        hard_error("waitpid", cli_path);
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    slurp(out_path, cli_out, sizeof cli_out);
    slurp(err_path, cli_err, sizeof cli_err);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* cli_argv() with the arguments listed, NULL last. */
static int cli(const char *first, ...)
{
    const char *args[MAX_ARGS];
    int n = 0;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && n < MAX_ARGS; a = va_arg(ap, const char *))
        args[n++] = a;
    va_end(ap);
    return cli_argv(n, args);
}

/* The command's own lines on stderr: progress ("[i/n] ...") and messages
 * ("oclconv: ...").  The OpenCL runtime may print lines of its own there
 * (PoCL compiling under a sanitizer, say); they are not the command's. */
static int count_lines(const char *s)
{
    int n = 0;
    for (const char *line = s; *line; ) {
        const char *end = strchr(line, '\n');
        if (line[0] == '[' || strncmp(line, "oclconv", 7) == 0)
            n++;
        else
            fprintf(stderr, "(not the command's: %.*s)\n", (int)(end ? end - line : (long)strlen(line)), line);
        if (!end)
            break;
        line = end + 1;
    }
    return n;
}

/* A failure: the status, one line on stderr, naming `name`. */
#define ASSERT_FAILS(rc, status, name, reason)                                 \
    do {                                                                       \
        ASSERT_EQ(rc, status);                                                 \
        ASSERT_CONTAINS(cli_err, name);                                        \
        ASSERT_CONTAINS(cli_err, reason);                                      \
        ASSERT_EQ(count_lines(cli_err), 1);                                    \
    } while (0)

/* ====== Test pictures ================================================ */

typedef struct {
    const char *name;
    int colour_type; /* PNG_COLOR_TYPE_* */
    int depth;       /* bits per sample in the file */
    int trns;        /* with a tRNS chunk */
    int interlace;
} png_case;

static const png_case cases[] = {
    {"gray1", PNG_COLOR_TYPE_GRAY, 1, 0, 0},
    {"gray2", PNG_COLOR_TYPE_GRAY, 2, 0, 0},
    {"gray4", PNG_COLOR_TYPE_GRAY, 4, 0, 0},
    {"gray8", PNG_COLOR_TYPE_GRAY, 8, 0, 0},
    {"gray16", PNG_COLOR_TYPE_GRAY, 16, 0, 0},
    {"gray8-trns", PNG_COLOR_TYPE_GRAY, 8, 1, 0},
    {"ga8", PNG_COLOR_TYPE_GRAY_ALPHA, 8, 0, 0},
    {"ga16", PNG_COLOR_TYPE_GRAY_ALPHA, 16, 0, 0},
    {"rgb8", PNG_COLOR_TYPE_RGB, 8, 0, 0},
    {"rgb16", PNG_COLOR_TYPE_RGB, 16, 0, 0},
    {"rgb16-trns", PNG_COLOR_TYPE_RGB, 16, 1, 0},
    {"rgb8-adam7", PNG_COLOR_TYPE_RGB, 8, 0, 1},
    {"rgba8", PNG_COLOR_TYPE_RGB_ALPHA, 8, 0, 0},
    {"rgba16", PNG_COLOR_TYPE_RGB_ALPHA, 16, 0, 0},
    {"pal1", PNG_COLOR_TYPE_PALETTE, 1, 0, 0},
    {"pal2", PNG_COLOR_TYPE_PALETTE, 2, 0, 0},
    {"pal4", PNG_COLOR_TYPE_PALETTE, 4, 0, 0},
    {"pal8", PNG_COLOR_TYPE_PALETTE, 8, 0, 0},
    {"pal2-trns", PNG_COLOR_TYPE_PALETTE, 2, 1, 0},
    {"pal8-trns", PNG_COLOR_TYPE_PALETTE, 8, 1, 1},
};
enum { N_CASES = sizeof cases / sizeof cases[0] };

/* A test picture: the samples as the file stores them, and the picture a
 * reader must decode from it (the expansion written out independently). */
typedef struct {
    int samples;        /* per pixel in the file */
    uint16_t *stored;   /* W * H * samples; palette: the index */
    png_color palette[256];
    int n_palette;
    png_byte trans_alpha[256];
    int n_trans;
    png_color_16 trans_colour;
    oclconv_image decoded;
} picture;

static picture pictures[N_CASES];

static void make_picture(const png_case *c, uint64_t *rng, picture *p)
{
    static const int samples_of[7] = {1, 0, 3, 1, 2, 0, 4}; /* by PNG colour type */
    const unsigned maxv = (1u << c->depth) - 1;
    const int palette = c->colour_type == PNG_COLOR_TYPE_PALETTE;
    const int has_alpha = c->colour_type & PNG_COLOR_MASK_ALPHA;
    const int wide = c->depth == 16;
    const unsigned dmax = wide ? 65535 : 255;
    const int out_ch = (palette ? 3 : samples_of[c->colour_type]) + (c->trns ? 1 : 0);
    const size_t n = (size_t)W * H;

    memset(p, 0, sizeof *p);
    p->samples = samples_of[c->colour_type];
    p->stored = calloc(n * (size_t)p->samples, sizeof *p->stored);
    p->decoded = (oclconv_image){malloc(n * (size_t)out_ch * (wide ? 2 : 1)), W, H, out_ch,
                                 wide ? OCLCONV_U16 : OCLCONV_U8, 0};
    if (!p->stored || !p->decoded.data) {
        fprintf(stderr, "out of memory\n");
        exit(TEST_HARD_ERROR);
    }
    if (palette) {
        p->n_palette = 1 << c->depth;
        for (int i = 0; i < p->n_palette; i++) {
            p->palette[i].red = (png_byte)rng_next(rng);
            p->palette[i].green = (png_byte)rng_next(rng);
            p->palette[i].blue = (png_byte)rng_next(rng);
        }
        if (c->trns) { /* the last entry keeps the implied 255 */
            p->n_trans = p->n_palette - 1;
            for (int i = 0; i < p->n_trans; i++)
                p->trans_alpha[i] = (png_byte)(i == 0 ? 0 : rng_next(rng));
        }
    } else if (c->trns) {
        p->trans_colour.gray = (png_uint_16)(maxv / 3);
        p->trans_colour.red = (png_uint_16)(maxv / 5);
        p->trans_colour.green = (png_uint_16)(maxv / 7);
        p->trans_colour.blue = (png_uint_16)(maxv / 11);
    }

    for (size_t i = 0; i < n; i++) {
        uint16_t *s = p->stored + i * (size_t)p->samples;
        for (int k = 0; k < p->samples; k++)
            s[k] = (uint16_t)(rng_next(rng) % (maxv + 1));
        if (has_alpha) { /* plenty of fully transparent and fully opaque pixels */
            unsigned r = rng_next(rng) % 4;
            s[p->samples - 1] = (uint16_t)(r == 0 ? 0 : r == 1 ? maxv : s[p->samples - 1]);
        }
        if (c->trns && !palette && rng_next(rng) % 4 == 0) {
            const png_color_16 *t = &p->trans_colour;
            s[0] = p->samples == 1 ? t->gray : t->red;
            if (p->samples == 3) {
                s[1] = t->green;
                s[2] = t->blue;
            }
        }

        unsigned v[4];
        if (palette) {
            v[0] = p->palette[s[0]].red;
            v[1] = p->palette[s[0]].green;
            v[2] = p->palette[s[0]].blue;
            v[3] = s[0] < p->n_trans ? p->trans_alpha[s[0]] : 255;
        } else {
            for (int k = 0; k < p->samples; k++)
                v[k] = s[k] * (dmax / maxv); /* 1, 2, 4 bits: scaled to 8 */
            if (c->trns) {
                const png_color_16 *t = &p->trans_colour;
                int match = p->samples == 1 ? s[0] == t->gray
                                            : s[0] == t->red && s[1] == t->green && s[2] == t->blue;
                v[p->samples] = match ? 0 : dmax;
            }
        }
        for (int k = 0; k < out_ch; k++) {
            size_t j = i * (size_t)out_ch + (size_t)k;
            if (wide)
                ((uint16_t *)p->decoded.data)[j] = (uint16_t)v[k];
            else
                ((uint8_t *)p->decoded.data)[j] = (uint8_t)v[k];
        }
    }
}

static void write_picture(const char *path, const png_case *c, const picture *p)
{
    FILE *fp = fopen(path, "wb");
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    const int bytes = c->depth == 16 ? 2 : 1;
    const size_t row_size = (size_t)W * (size_t)p->samples * (size_t)bytes;
    png_bytep data = malloc(row_size * H);
    png_bytep rows[H];

    if (!fp || !info || !data)
        hard_error("cannot write", path);
    for (int y = 0; y < H; y++) {
        rows[y] = data + (size_t)y * row_size;
        for (size_t k = 0; k < (size_t)W * (size_t)p->samples; k++) {
            uint16_t s = p->stored[(size_t)y * W * (size_t)p->samples + k];
            if (bytes == 2) {
                rows[y][2 * k] = (png_byte)(s >> 8);
                rows[y][2 * k + 1] = (png_byte)s;
            } else {
                rows[y][k] = (png_byte)s;
            }
        }
    }
    if (setjmp(png_jmpbuf(png)))
        hard_error("libpng failed on", path);
    png_init_io(png, fp);
    png_set_IHDR(png, info, W, H, c->depth, c->colour_type,
                 c->interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (p->n_palette)
        png_set_PLTE(png, info, p->palette, p->n_palette);
    if (c->trns && p->n_palette)
        png_set_tRNS(png, info, p->trans_alpha, p->n_trans, NULL);
    else if (c->trns)
        png_set_tRNS(png, info, NULL, 0, &p->trans_colour);
    png_write_info(png, info);
    if (c->depth < 8)
        png_set_packing(png);
    png_write_image(png, rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(data);
    if (fclose(fp) != 0)
        hard_error("cannot write", path);
}

/* ====== Expected results ============================================= */

typedef struct {
    int w, h;
    double *weights;
} weights;

/* The weights of the library filter that the call which returned `st` made
 * in *made; the filter is then destroyed.  (A pointer to the pointer: the
 * call and the read of *made are then sequenced.) */
static weights weights_of(oclconv_status st, oclconv_filter **made)
{
    oclconv_filter *f = *made;
    weights k = {0, 0, NULL};
    if (st != OCLCONV_OK) {
        fprintf(stderr, "filter: %s: %s\n", oclconv_strerror(st), oclconv_errmsg(NULL));
        exit(TEST_HARD_ERROR);
    }
    oclconv_filter_size(f, &k.w, &k.h);
    k.weights = malloc((size_t)k.w * (size_t)k.h * sizeof *k.weights);
    if (!k.weights)
        exit(TEST_HARD_ERROR);
    memcpy(k.weights, oclconv_filter_weights(f), (size_t)k.w * (size_t)k.h * sizeof *k.weights);
    oclconv_filter_destroy(f);
    return k;
}

static double type_max(oclconv_type t)
{
    return t == OCLCONV_U16 ? 65535 : 255;
}

static double sample(const oclconv_image *img, size_t i)
{
    return img->type == OCLCONV_U16 ? ((const uint16_t *)img->data)[i]
                                    : ((const uint8_t *)img->data)[i];
}

/* Whether integer `got` is what rounding (half to even) and saturating a
 * value within `err` of `exact` can give. */
static int within(double got, double exact, double err, double hi)
{
    double lo_v = ceil(exact - err - 1e-3 - 0.5), hi_v = floor(exact + err + 1e-3 + 0.5);
    lo_v = lo_v < 0 ? 0 : lo_v > hi ? hi : lo_v;
    hi_v = hi_v < 0 ? 0 : hi_v > hi ? hi : hi_v;
    return got >= lo_v && got <= hi_v;
}

/* The command's default alpha handling, recomputed on the CPU: colour
 * premultiplied into float (c * a / max), convolved exactly, divided by the
 * filtered alpha A / S (S = sum of the weights), then scale and delta; alpha
 * is A / S.  For weights summing to 0: colour = scale * P + delta, alpha
 * kept.  The constant border is V in every straight channel: V * V / max in
 * premultiplied colour, V in alpha.
 *
 * Tolerance: the command keeps the premultiplied values in float, so each
 * output is rounded once, but its float32 sums may differ from the exact
 * ones by the library's bound (1e-5 of the magnitude of the terms).  That
 * error is propagated through the division by alpha, where it grows as
 * alpha gets small; an output may take either integer that rounding a value
 * within the propagated error gives, which is +-1 around a rounding tie and
 * exact elsewhere. */
static long compare_premultiplied(const oclconv_image *in, const oclconv_image *out,
                                  const weights *k, const oclconv_options *user, char *why,
                                  size_t why_size)
{
    const double amax = type_max(in->type), v = user->border_value;
    const int ch = in->channels, cc = ch - 1;
    const size_t n = (size_t)in->width * (size_t)in->height;
    double s = 0, abs_sum = 0;
    long bad = 0;
    for (int i = 0; i < k->w * k->h; i++) {
        s += k->weights[i];
        abs_sum += fabs(k->weights[i]);
    }
    const int zero_sum = fabs(s) <= 1e-6 * abs_sum;

    oclconv_image pm = {malloc(n * (size_t)ch * sizeof(float)), in->width, in->height, ch,
                        OCLCONV_F32, 0};
    if (!pm.data)
        exit(TEST_HARD_ERROR);
    for (size_t i = 0; i < n; i++) {
        double a = sample(in, i * (size_t)ch + (size_t)cc);
        for (int c = 0; c < cc; c++)
            ((float *)pm.data)[i * (size_t)ch + (size_t)c] =
                (float)(sample(in, i * (size_t)ch + (size_t)c) * (a / amax));
        ((float *)pm.data)[i * (size_t)ch + (size_t)cc] = (float)a;
    }
    oclconv_options oc = *user, oa;
    ref_result rc, ra;
    oc.scale = 1;
    oc.delta = 0;
    oc.border_value = (float)(v * (v / amax));
    oa = oc;
    oa.border_value = (float)v;
    if (ref_convolve(&pm, k->w, k->h, k->weights, &oc, &rc) ||
        ref_convolve(&pm, k->w, k->h, k->weights, &oa, &ra))
        exit(TEST_HARD_ERROR);

    for (size_t i = 0; i < n; i++) {
        const size_t ai = i * (size_t)ch + (size_t)cc;
        const double alpha_in = sample(in, ai), alpha_got = sample(out, ai);
        const double big_a = ra.value[ai], a = big_a / s;
        const double err_a = 1e-5 * ra.magnitude[ai];
        for (int c = 0; c < cc && !bad; c++) {
            const size_t ci = i * (size_t)ch + (size_t)c;
            const double p = rc.value[ci], err_p = 1e-5 * rc.magnitude[ci];
            const double got = sample(out, ci);
            double exact, err;
            if (zero_sum) {
                exact = user->scale * p + user->delta;
                err = fabs(user->scale) * err_p;
            } else if (fabs(big_a) <= err_a) {
                continue; /* alpha too close to 0 to tell the colour */
            } else if (a > 0) {
                exact = user->scale * p * amax / a + user->delta;
                err = fabs(user->scale) * amax / a * err_p +
                      fabs(exact - user->delta) * err_a / fabs(big_a);
            } else {
                exact = 0;
                err = 0;
            }
            if (!within(got, exact, err, amax) && bad++ == 0)
                snprintf(why, why_size, "colour at x=%zu y=%zu c=%d: got %g, exact %.6f +- %.3g",
                         i % (size_t)in->width, i / (size_t)in->width, c, got, exact, err);
        }
        if (bad)
            break;
        if (zero_sum ? alpha_got != alpha_in : !within(alpha_got, a, err_a / fabs(s), amax)) {
            bad++;
            snprintf(why, why_size, "alpha at x=%zu y=%zu: got %g, exact %.6f (input %g)",
                     i % (size_t)in->width, i / (size_t)in->width, alpha_got,
                     zero_sum ? alpha_in : a, alpha_in);
        }
    }
    ref_result_free(&rc);
    ref_result_free(&ra);
    free(pm.data);
    return bad;
}

/* Reads an output of the command and compares it with the reference for
 * the input picture: straight convolution, or premultiplied alpha. */
static void check_output(const char *path, const picture *p, const weights *k,
                         const oclconv_options *opt, int premultiplied)
{
    png_io_picture out;
    char why[300] = "";
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        TEST_FAIL_("%s: %s", path, strerror(errno));
        return;
    }
    int rc = png_io_read(fp, &out, why, sizeof why);
    fclose(fp);
    if (rc) {
        TEST_FAIL_("%s: %s", path, why);
        return;
    }
    const oclconv_image *in = &p->decoded, *got = &out.image;
    if (got->width != in->width || got->height != in->height ||
        got->channels != in->channels || got->type != in->type) {
        TEST_FAIL_("%s: %dx%d, %d channels, type %d; wanted %dx%d, %d channels, type %d", path,
                   got->width, got->height, got->channels, got->type, in->width, in->height,
                   in->channels, in->type);
    } else if (premultiplied && in->channels % 2 == 0) {
        if (compare_premultiplied(in, got, k, opt, why, sizeof why))
            TEST_FAIL_("%s (premultiplied): %s", path, why);
    } else {
        ref_result ref;
        if (ref_convolve(in, k->w, k->h, k->weights, opt, &ref))
            exit(TEST_HARD_ERROR);
        if (ref_compare(got, &ref, why, sizeof why))
            TEST_FAIL_("%s: %s", path, why);
        ref_result_free(&ref);
    }
    png_io_free(&out);
}

static int case_index(const char *name)
{
    for (int i = 0; i < N_CASES; i++)
        if (strcmp(cases[i].name, name) == 0)
            return i;
    exit(TEST_HARD_ERROR);
}

static const char *input(const char *name)
{
    return at("in/%s.png", name);
}

/* ====== Tests ======================================================== */

/* Every colour type and depth with the defaults: gaussian, sigma 2. */
static void test_defaults_every_format(void)
{
    const char *args[N_CASES + 2];
    char names[N_CASES + 1][1200];
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_gaussian(2.0, 2.0, 0, 0, &f), &f);
    oclconv_options_init(&opt);

    /* One run over every file: the batch mode too. */
    args[0] = "-o";
    args[1] = strcpy(names[N_CASES], at("out-default"));
    for (int i = 0; i < N_CASES; i++)
        args[i + 2] = strcpy(names[i], input(cases[i].name));
    ASSERT_EQ(cli_argv(N_CASES + 2, args), 0);
    /* Not a terminal: one plain line per file instead of a bar. */
    ASSERT_EQ(count_lines(cli_err), N_CASES);
    ASSERT_CONTAINS(cli_err, "[1/");
    for (int i = 0; i < N_CASES; i++)
        check_output(at("out-default/%s.png", cases[i].name), &pictures[i], &k, &opt, 1);
    int hidden;
    ASSERT_EQ(count_entries(at("out-default"), &hidden), N_CASES);
    ASSERT_EQ(hidden, 0);
    free(k.weights);
}

/* --no-premultiply: alpha is a channel like the others, integers throughout. */
static void test_no_premultiply(void)
{
    static const char *names[] = {"ga8", "ga16", "rgba8", "rgba16", "pal8-trns", "rgb16-trns"};
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_box(2, 1, &f), &f);
    oclconv_options_init(&opt);
    opt.border = OCLCONV_BORDER_REFLECT101;
    ASSERT_EQ(cli("--no-premultiply", "--filter=box", "-r", "2x1", "--border", "reflect101", "-o",
                  at("out-straight"), input(names[0]), input(names[1]), input(names[2]),
                  input(names[3]), input(names[4]), input(names[5]), (char *)NULL),
              0);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        check_output(at("out-straight/%s.png", names[i]), &pictures[case_index(names[i])], &k,
                     &opt, 0);
    free(k.weights);
}

/* Derivatives: mid-grey delta by default; with alpha, colour premultiplied
 * and alpha kept. */
static void test_sobel_default_delta(void)
{
    static const char *names[] = {"gray8", "rgb16", "rgba8", "ga16"};
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_sobel_x(&f), &f);
    ASSERT_EQ(cli("--filter", "sobel-x", "--border", "wrap", "-o", at("out-sobel"),
                  input(names[0]), input(names[1]), input(names[2]), input(names[3]),
                  (char *)NULL),
              0);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const picture *p = &pictures[case_index(names[i])];
        oclconv_options_init(&opt);
        opt.border = OCLCONV_BORDER_WRAP;
        opt.delta = p->decoded.type == OCLCONV_U16 ? 32768 : 128;
        check_output(at("out-sobel/%s.png", names[i]), p, &k, &opt, 1);
    }
    free(k.weights);
}

/* A custom kernel, scale, delta, a constant border; INPUT OUTPUT form; the
 * verbose line names the forced path. */
static void test_custom_kernel(void)
{
    static const float w[9] = {1, 2, 1, 0, 0, 0, -1, -2, -1};
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_create(3, 3, w, &f), &f);
    oclconv_options_init(&opt);
    opt.scale = 0.25f;
    opt.delta = 10;
    opt.border = OCLCONV_BORDER_CONSTANT;
    opt.border_value = 50;
    ASSERT_EQ(cli("--kernel", "1 2 1; 0,0,0 ;-1, -2, -1", "--scale", "0.25", "--delta", "10",
                  "--border", "constant:50", "--method", "buffer", "--verbose", input("rgb8"),
                  at("custom.png"), (char *)NULL),
              0);
    check_output(at("custom.png"), &pictures[case_index("rgb8")], &k, &opt, 1);
    ASSERT_CONTAINS(cli_err, "buffer path");
    ASSERT_CONTAINS(cli_err, "custom 3x3");

    /* Same kernel from a file, one row per line, with comments. */
    static const char file[] = "# Sobel, d/dy\n1 2 1   # top\n\n0 0 0\n-1 -2 -1\n";
    write_all(at("kernel.txt"), file, sizeof file - 1);
    ASSERT_EQ(cli("--kernel-file", at("kernel.txt"), "--scale=0.25", "--delta=10",
                  "--border=constant:50", input("rgb8"), at("custom-file.png"), (char *)NULL),
              0);
    check_output(at("custom-file.png"), &pictures[case_index("rgb8")], &k, &opt, 1);
    free(k.weights);
}

/* Premultiplied alpha with weights that do not sum to 1, and with the
 * constant border whose colour and alpha values differ. */
static void test_premultiplied_variants(void)
{
    static const float w[9] = {0, 1, 0, 1, 4, 1, 0, 1, 0}; /* sums to 8 */
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_create(3, 3, w, &f), &f);
    oclconv_options_init(&opt);
    opt.scale = 0.125f;
    ASSERT_EQ(cli("-k", "0,1,0;1,4,1;0,1,0", "--scale", "0.125", "-o", at("out-pm"),
                  input("ga8"), input("rgba16"), (char *)NULL),
              0);
    check_output(at("out-pm/ga8.png"), &pictures[case_index("ga8")], &k, &opt, 1);
    check_output(at("out-pm/rgba16.png"), &pictures[case_index("rgba16")], &k, &opt, 1);
    free(k.weights);

    k = weights_of(oclconv_filter_sharpen(0.5f, &f), &f);
    oclconv_options_init(&opt);
    opt.border = OCLCONV_BORDER_CONSTANT;
    opt.border_value = 100;
    ASSERT_EQ(cli("--filter", "sharpen", "--amount", "0.5", "--border", "constant:100",
                  input("rgba8"), at("sharpen-rgba8.png"), (char *)NULL),
              0);
    check_output(at("sharpen-rgba8.png"), &pictures[case_index("rgba8")], &k, &opt, 1);
    free(k.weights);

    k = weights_of(oclconv_filter_box(1, 2, &f), &f);
    oclconv_options_init(&opt);
    opt.border = OCLCONV_BORDER_NORMALIZE;
    ASSERT_EQ(cli("-f", "box", "-r", "1x2", "-b", "normalize", input("pal2-trns"),
                  at("box-pal2-trns.png"), (char *)NULL),
              0);
    check_output(at("box-pal2-trns.png"), &pictures[case_index("pal2-trns")], &k, &opt, 1);
    free(k.weights);
}

/* OUTPUT may be a folder; the input's name is kept. */
static void test_output_folder(void)
{
    make_dir(at("into"));
    ASSERT_EQ(cli("-f", "identity", input("gray4"), at("into"), (char *)NULL), 0);
    ASSERT(exists(at("into/gray4.png")));
}

/* Bad input files: one line naming the file, status 1, nothing left. */
static void test_bad_files(void)
{
    size_t len;
    int hidden;
    unsigned char *png = read_all(input("rgb8"), &len);

    make_dir(at("fail"));
    ASSERT_FAILS(cli(at("missing.png"), at("fail/x.png"), (char *)NULL), 1, "missing.png",
                 "No such file");
    write_all(at("text.png"), "hello, world\n", 13);
    ASSERT_FAILS(cli(at("text.png"), at("fail/x.png"), (char *)NULL), 1, "text.png",
                 "not a PNG file");
    write_all(at("empty.png"), "", 0);
    ASSERT_FAILS(cli(at("empty.png"), at("fail/x.png"), (char *)NULL), 1, "empty.png",
                 "not a PNG file");
    write_all(at("half.png"), png, len / 2);
    ASSERT_FAILS(cli(at("half.png"), at("fail/x.png"), (char *)NULL), 1, "half.png",
                 "truncated");
    write_all(at("no-iend.png"), png, len - 12);
    ASSERT_FAILS(cli(at("no-iend.png"), at("fail/x.png"), (char *)NULL), 1, "no-iend.png",
                 "truncated");
    write_all(at("sig-only.png"), png, 5);
    ASSERT_FAILS(cli(at("sig-only.png"), at("fail/x.png"), (char *)NULL), 1, "sig-only.png",
                 "truncated");
    /* A corrupted byte inside the image data: a CRC or zlib error. */
    png[len / 2] ^= 0x55;
    write_all(at("corrupt.png"), png, len);
    ASSERT_FAILS(cli(at("corrupt.png"), at("fail/x.png"), (char *)NULL), 1, "corrupt.png",
                 "PNG error");
    ASSERT_FAILS(cli(at("in"), at("fail/x.png"), (char *)NULL), 1, "in", "Is a directory");
    ASSERT_EQ(count_entries(at("fail"), &hidden), 0);
    free(png);
}

static uint32_t crc_of(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return ~c;
}

static size_t put_chunk(unsigned char *at_, const char *type, const unsigned char *data,
                        uint32_t len)
{
    unsigned char *p = at_;
    p[0] = (unsigned char)(len >> 24);
    p[1] = (unsigned char)(len >> 16);
    p[2] = (unsigned char)(len >> 8);
    p[3] = (unsigned char)len;
    memcpy(p + 4, type, 4);
    if (len)
        memcpy(p + 8, data, len);
    uint32_t crc = crc_of(p + 4, 4 + (size_t)len);
    p += 8 + len;
    p[0] = (unsigned char)(crc >> 24);
    p[1] = (unsigned char)(crc >> 16);
    p[2] = (unsigned char)(crc >> 8);
    p[3] = (unsigned char)crc;
    return 12 + (size_t)len;
}

/* A header claiming a huge image, then a little image data. */
static void write_huge_header(const char *path, uint32_t w, uint32_t h, int depth, int type)
{
    unsigned char buf[256], ihdr[13] = {0}, idat[8] = {0x78, 0x9c, 0x03, 0, 0, 0, 0, 1};
    size_t n = 8;
    memcpy(buf, "\x89PNG\r\n\x1a\n", 8);
    for (int i = 0; i < 4; i++) {
        ihdr[i] = (unsigned char)(w >> (24 - 8 * i));
        ihdr[4 + i] = (unsigned char)(h >> (24 - 8 * i));
    }
    ihdr[8] = (unsigned char)depth;
    ihdr[9] = (unsigned char)type;
    n += put_chunk(buf + n, "IHDR", ihdr, 13);
    n += put_chunk(buf + n, "IDAT", idat, sizeof idat);
    n += put_chunk(buf + n, "IEND", NULL, 0);
    write_all(path, buf, n);
}

static void test_hostile_headers(void)
{
    write_huge_header(at("wide.png"), 70000, 1, 8, PNG_COLOR_TYPE_GRAY);
    ASSERT_FAILS(cli(at("wide.png"), at("fail/x.png"), (char *)NULL), 1, "wide.png",
                 "exceeds user limit");
    write_huge_header(at("huge.png"), 60000, 60000, 16, PNG_COLOR_TYPE_RGB_ALPHA);
    ASSERT_FAILS(cli(at("huge.png"), at("fail/x.png"), (char *)NULL), 1, "huge.png",
                 "too large");
}

/* A failed input: status 1, one line naming it, nothing written. */
static void assert_refused(const char *name, int rc)
{
    int hidden;
    if (rc != 1 || !strstr(cli_err, name) || count_lines(cli_err) != 1)
        TEST_FAIL_("%s: status %d, stderr \"%s\"", name, rc, cli_err);
    ASSERT_EQ(count_entries(at("fail"), &hidden), 0);
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A valid file cut at every chunk boundary and in the middle of every
 * chunk, and with each chunk's CRC broken in turn.  A broken CRC on an
 * ancillary chunk may be ignored (libpng drops the chunk with a warning):
 * then the output must be the whole, correct image, else nothing. */
static int hostile_chunks(void)
{
    size_t len;
    unsigned char *png = read_all(input("rgba8"), &len);
    char name[64];
    int files = 0;
    oclconv_filter *f;
    oclconv_options opt;
    weights k = weights_of(oclconv_filter_gaussian(2.0, 2.0, 0, 0, &f), &f);
    oclconv_options_init(&opt);
    make_dir(at("fail"));
    for (size_t at_ = 8; at_ + 12 <= len; at_ += 12 + be32(png + at_)) {
        uint32_t n = be32(png + at_);
        int critical = !(png[at_ + 4] & 0x20);
        size_t cuts[3] = {at_, at_ + 8 + n / 2, at_ + 8 + n};
        for (int c = 0; c < 3; c++) {
            snprintf(name, sizeof name, "cut-%zu.png", cuts[c]);
            write_all(at("%s", name), png, cuts[c]);
            assert_refused(name, cli(at("%s", name), at("fail/x.png"), (char *)NULL));
            files++;
        }
        png[at_ + 8 + n] ^= 0xff; /* the CRC's first byte */
        snprintf(name, sizeof name, "crc-%.4s.png", (const char *)png + at_ + 4);
        write_all(at("%s", name), png, len);
        int rc = cli(at("%s", name), at("fail/x.png"), (char *)NULL);
        if (critical || rc != 0) {
            assert_refused(name, rc);
        } else {
            check_output(at("fail/x.png"), &pictures[case_index("rgba8")], &k, &opt, 1);
            remove(at("fail/x.png"));
        }
        png[at_ + 8 + n] ^= 0xff;
        files++;
    }
    free(png);
    free(k.weights);
    return files;
}

/* Headers no decoder should accept: zero sizes, bit depths and colour
 * types that do not exist, a 16-bit palette. */
static int hostile_headers(void)
{
    static const struct {
        uint32_t w, h;
        int depth, type;
    } bad[] = {{0, 4, 8, PNG_COLOR_TYPE_GRAY}, {4, 0, 8, PNG_COLOR_TYPE_GRAY},
               {4, 4, 3, PNG_COLOR_TYPE_GRAY}, {4, 4, 16, PNG_COLOR_TYPE_PALETTE},
               {4, 4, 8, 7},                   {4, 4, 4, PNG_COLOR_TYPE_RGB},
               {0x80000000u, 1, 8, PNG_COLOR_TYPE_GRAY}};
    char name[64];
    make_dir(at("fail"));
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(name, sizeof name, "header-%zu.png", i);
        write_huge_header(at("%s", name), bad[i].w, bad[i].h, bad[i].depth, bad[i].type);
        assert_refused(name, cli(at("%s", name), at("fail/x.png"), (char *)NULL));
    }
    return (int)(sizeof bad / sizeof *bad);
}

/* Outputs that cannot be written: status 1, the output named, no debris. */
static void test_bad_outputs(void)
{
    size_t before_len, after_len;
    int hidden;
    ASSERT_FAILS(cli(input("gray8"), at("no/such/folder/x.png"), (char *)NULL), 1, "x.png",
                 "No such file");
    ASSERT_FAILS(cli(input("gray8"), at("in/gray8.png/x.png"), (char *)NULL), 1, "x.png",
                 "Not a directory");
    if (geteuid() != 0) { /* permissions do not stop root */
        make_dir(at("locked"));
        chmod(at("locked"), 0555);
        ASSERT_FAILS(cli(input("gray8"), at("locked/x.png"), (char *)NULL), 1, "x.png",
                     "Permission denied");
        ASSERT_EQ(count_entries(at("locked"), &hidden), 0);
        chmod(at("locked"), 0755);
    }

    /* The same file as input and output is refused and left alone. */
    unsigned char *before = read_all(input("rgb8"), &before_len);
    write_all(at("same.png"), before, before_len);
    ASSERT_FAILS(cli(at("same.png"), at("same.png"), (char *)NULL), 1, "same.png",
                 "same file");
    unsigned char *after = read_all(at("same.png"), &after_len);
    ASSERT(before_len == after_len && memcmp(before, after, before_len) == 0);
    free(before);
    free(after);
}

/* One bad file in a batch: the others are written, status 1. */
static void test_batch_with_failure(void)
{
    int rc = cli("-o", at("out-batch"), input("gray8"), at("text.png"), input("rgb8"),
                 input("gray8"), (char *)NULL);
    ASSERT_EQ(rc, 1);
    ASSERT(exists(at("out-batch/gray8.png")));
    ASSERT(exists(at("out-batch/rgb8.png")));
    ASSERT(!exists(at("out-batch/text.png")));
    ASSERT_CONTAINS(cli_err, "text.png: not a PNG file");
    ASSERT_CONTAINS(cli_err, "would replace that of"); /* gray8.png given twice */
    ASSERT_CONTAINS(cli_err, "2 of 4 files failed");
}

static void test_usage_errors(void)
{
    static const char *const bad[][3] = {
        {"--radius", "-3", "--radius"},
        {"--radius", "2x", "--radius"},
        {"--border", "bogus", "bogus"},
        {"--border", "constant:x", "constant:x"},
        {"--kernel", "1,2;3", "row 2 has 1 value"},
        {"--kernel", "1,2;3,4", "odd"},
        {"--kernel-file", "/nonexistent/k.txt", "k.txt"},
        {"--sigma", "0", "--sigma"},
        {"--sigma", "nan", "--sigma"},
        {"--filter", "blur", "blur"},
        {"--method", "fast", "fast"},
        {"--scale", "1e99999", "--scale"},
        {"--bogus", "x", "--bogus"},
        {"--amount", "2", "sharpen"},   /* amount without sharpen */
        {"-z", "x", "-z"},
    };
    int hidden;
    make_dir(at("usage"));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = cli(bad[i][0], bad[i][1], input("gray8"), at("usage/x.png"), (char *)NULL);
        if (rc != 2 || !strstr(cli_err, bad[i][2]) || count_lines(cli_err) != 1)
            TEST_FAIL_("%s %s: exit %d, stderr: %s", bad[i][0], bad[i][1], rc, cli_err);
    }
    ASSERT_FAILS(cli("--filter", "sobel-x", "--border", "normalize", input("gray8"),
                     at("usage/x.png"), (char *)NULL),
                 2, "normalize", "sum to 0");
    ASSERT_FAILS(cli("-f", "box", "-s", "2", input("gray8"), at("usage/x.png"), (char *)NULL), 2,
                 "--sigma", "gaussian");
    ASSERT_FAILS(cli("-k", "1", "-f", "box", input("gray8"), at("usage/x.png"), (char *)NULL), 2,
                 "--kernel", "--filter");
    ASSERT_FAILS(cli(input("gray8"), (char *)NULL), 2, "oclconv", "INPUT.png OUTPUT.png");
    ASSERT_FAILS(cli(input("gray8"), input("rgb8"), at("usage/x.png"), (char *)NULL), 2,
                 "oclconv", "INPUT.png OUTPUT.png");
    ASSERT_FAILS(cli("-o", at("usage"), (char *)NULL), 2, "oclconv", "no input");
    ASSERT_FAILS(cli("--radius", (char *)NULL), 2, "--radius", "needs a value");
    ASSERT_FAILS(cli("--verbose=1", (char *)NULL), 2, "--verbose", "takes no value");
    ASSERT_EQ(count_entries(at("usage"), &hidden), 0);
}

static void test_info_options(void)
{
    char version[32];
    ASSERT_EQ(cli("--help", (char *)NULL), 0);
    ASSERT_CONTAINS(cli_out, "Usage: oclconv");
    ASSERT_CONTAINS(cli_out, "--border");
    ASSERT_EQ(cli("-h", (char *)NULL), 0);
    ASSERT_CONTAINS(cli_out, "Exit status");
    snprintf(version, sizeof version, "oclconv %d.%d.%d", OCLCONV_VERSION_MAJOR,
             OCLCONV_VERSION_MINOR, OCLCONV_VERSION_PATCH);
    ASSERT_EQ(cli("--version", (char *)NULL), 0);
    ASSERT_CONTAINS(cli_out, version);
    ASSERT_CONTAINS(cli_out, "libpng");
    ASSERT_EQ(cli("--list-devices", (char *)NULL), 0);
    ASSERT_CONTAINS(cli_out, "0: ");
}

/* The kernel text parser on its own. */
static void test_kernel_text(void)
{
    static const struct {
        const char *text;
        int w, h;
        float first, last;
    } good[] = {
        {"1,2,1;2,4,2;1,2,1", 3, 3, 1, 1},
        {"1 2 1\n2 4 2\n1 2 1\n", 3, 3, 1, 1},
        {" 1 , -2.5 ,1e1 ;", 3, 1, 1, 10},
        {"# identity\n\n  5  \n", 1, 1, 5, 5},
        {"1\r\n2\r\n3\r\n", 1, 3, 1, 3},
        {"0;;1;;2", 1, 3, 0, 2},
    };
    static const struct {
        const char *text, *reason;
    } bad[] = {
        {"1,2;3", "row 2 has 1 value but row 1 has 2"},
        {"1,2;3,4", "odd number of columns"},
        {"1;2", "odd number of rows"},
        {"1,,2", "row 1, value 2: empty value"},
        {",1", "empty value"},
        {"1,2,3,", "row 1 ends with a comma"},
        {"1,x,2", "row 1, value 2: 'x' is not a number"},
        {"1;2;1e", "row 3, value 1: '1e' is not a number"},
        {"1,inf,1", "not a finite"},
        {"nan", "not a finite"},
        {"1e39", "not a finite"},
        {"", "no values"},
        {" \n ; # nothing\n", "no values"},
    };
    kernel_text k;
    char err[200];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        if (kernel_text_parse(good[i].text, &k, err, sizeof err)) {
            TEST_FAIL_("'%s': %s", good[i].text, err);
            continue;
        }
        ASSERT_EQ(k.width, good[i].w);
        ASSERT_EQ(k.height, good[i].h);
        ASSERT(k.weights[0] == good[i].first);
        ASSERT(k.weights[k.width * k.height - 1] == good[i].last);
        kernel_text_free(&k);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (kernel_text_parse(bad[i].text, &k, err, sizeof err) == 0) {
            TEST_FAIL_("'%s' parsed", bad[i].text);
            kernel_text_free(&k);
            continue;
        }
        ASSERT(k.weights == NULL);
        ASSERT_CONTAINS(err, bad[i].reason);
    }
}

int main(void)
{
    const char *build = test_build_dir();
    const char *env_cli = getenv("OCLCONV_CLI");
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    struct stat st;

    snprintf(cli_path, sizeof cli_path, "%s", env_cli && *env_cli ? env_cli : "");
    if (!*cli_path)
        snprintf(cli_path, sizeof cli_path, "%s/oclconv", build);
    if (stat(cli_path, &st) != 0 || access(cli_path, X_OK) != 0) {
        fprintf(stderr, "the command %s is missing: build it first (make)\n", cli_path);
        return TEST_HARD_ERROR;
    }
    oclconv_destroy(test_context()); /* a device is there */

    snprintf(tmp, sizeof tmp, "%s/tests/cli-tmp", build);
    remove_tree(tmp);
    make_dir(tmp);
    make_dir(at("in"));

    test_kernel_text();
    for (int i = 0; i < N_CASES; i++) {
        make_picture(&cases[i], &rng, &pictures[i]);
        write_picture(input(cases[i].name), &cases[i], &pictures[i]);
    }
    test_info_options();
    test_defaults_every_format();
    test_no_premultiply();
    test_sobel_default_delta();
    test_custom_kernel();
    test_premultiplied_variants();
    test_output_folder();
    test_bad_files();
    test_hostile_headers();
    int hostile = hostile_chunks();
    hostile += hostile_headers();
    printf("hostile PNG files refused or read whole: %d\n", hostile);
    test_bad_outputs();
    test_batch_with_failure();
    test_usage_errors();

    for (int i = 0; i < N_CASES; i++) {
        free(pictures[i].stored);
        free(pictures[i].decoded.data);
    }
    if (!test_failures)
        remove_tree(tmp);
    return test_exit();
}
