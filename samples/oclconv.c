/*
 * oclconv — filter PNG images by convolution on an OpenCL device.
 *
 *   oclconv [options] INPUT.png OUTPUT.png
 *   oclconv [options] -o DIR INPUT.png...
 *
 * Each output is written to a temporary file beside its target and renamed
 * into place, so a failed or interrupted run never leaves a half-written
 * PNG.  Exit status: 0 every file written, 1 a file failed, 2 usage error.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kernel_text.h"
#include "oclconv.h"
#include "png_io.h"

#define EXIT_FILE_FAILED 1
#define EXIT_USAGE 2

/* A kernel file larger than this is certainly not a kernel. */
#define KERNEL_FILE_MAX ((size_t)1 << 20)

static const char *const program = "oclconv";

/* ====== Options ====================================================== */

typedef enum {
    FILTER_GAUSSIAN,
    FILTER_BOX,
    FILTER_SHARPEN,
    FILTER_EMBOSS,
    FILTER_LAPLACIAN,
    FILTER_SOBEL_X,
    FILTER_SOBEL_Y,
    FILTER_IDENTITY,
    FILTER_CUSTOM
} filter_kind;

static const char *const filter_names[] = {"gaussian",  "box",     "sharpen",  "emboss",
                                           "laplacian", "sobel-x", "sobel-y", "identity",
                                           "custom"};

static const char *const border_names[] = {"clamp",      "zero", "constant", "reflect",
                                           "reflect101", "wrap", "normalize"};

typedef struct {
    filter_kind filter;
    int filter_given;
    int radius_given, rx, ry;
    double sigma_x, sigma_y;
    int sigma_given;
    double amount;
    int amount_given;
    const char *kernel, *kernel_file;
    oclconv_options conv; /* border, border value, method, scale, delta */
    int delta_given;
    const char *device;
    const char *out_dir;
    int premultiply, verbose, list_devices, help, version;
    char **operands;
    int n_operands;
} cli_options;

enum {
    OPT_FILTER,
    OPT_RADIUS,
    OPT_SIGMA,
    OPT_AMOUNT,
    OPT_KERNEL,
    OPT_KERNEL_FILE,
    OPT_SCALE,
    OPT_DELTA,
    OPT_BORDER,
    OPT_NO_PREMULTIPLY,
    OPT_METHOD,
    OPT_DEVICE,
    OPT_LIST_DEVICES,
    OPT_OUTPUT_DIR,
    OPT_VERBOSE,
    OPT_HELP,
    OPT_VERSION,
    OPT_COUNT
};

static const struct {
    const char *name;
    char short_name; /* 0: long form only */
    int takes_value;
} option_table[OPT_COUNT] = {
    [OPT_FILTER] = {"filter", 'f', 1},
    [OPT_RADIUS] = {"radius", 'r', 1},
    [OPT_SIGMA] = {"sigma", 's', 1},
    [OPT_AMOUNT] = {"amount", 0, 1},
    [OPT_KERNEL] = {"kernel", 'k', 1},
    [OPT_KERNEL_FILE] = {"kernel-file", 0, 1},
    [OPT_SCALE] = {"scale", 0, 1},
    [OPT_DELTA] = {"delta", 0, 1},
    [OPT_BORDER] = {"border", 'b', 1},
    [OPT_NO_PREMULTIPLY] = {"no-premultiply", 0, 0},
    [OPT_METHOD] = {"method", 'm', 1},
    [OPT_DEVICE] = {"device", 'd', 1},
    [OPT_LIST_DEVICES] = {"list-devices", 0, 0},
    [OPT_OUTPUT_DIR] = {"output-dir", 'o', 1},
    [OPT_VERBOSE] = {"verbose", 'v', 0},
    [OPT_HELP] = {"help", 'h', 0},
    [OPT_VERSION] = {"version", 'V', 0},
};

static void usage(FILE *out)
{
    fputs("Usage: oclconv [OPTION]... INPUT.png OUTPUT.png\n"
          "  or:  oclconv [OPTION]... -o DIR INPUT.png...\n"
          "Filter PNG images by convolution on an OpenCL device.\n"
          "\n"
          "Filter:\n"
          "  -f, --filter NAME     gaussian (default), box, sharpen, emboss, laplacian,\n"
          "                        sobel-x, sobel-y or identity\n"
          "  -r, --radius N|RXxRY  box: taps each side of the centre, default 1 (3x3);\n"
          "                        gaussian: default 0, meaning ceil(3 * sigma)\n"
          "  -s, --sigma S|SXxSY   gaussian standard deviation in pixels, default 2\n"
          "      --amount A        sharpen strength, default 1\n"
          "  -k, --kernel TEXT     custom weights: rows split by ';', values by ',' or\n"
          "                        blanks, e.g. '0,-1,0;-1,5,-1;0,-1,0'; odd sizes\n"
          "      --kernel-file F   custom weights from a file, one row per line,\n"
          "                        '#' starts a comment\n"
          "      --scale S         output = S * weighted sum + D; default 1\n"
          "      --delta D         default 0, but mid-grey (128; 32768 for 16-bit\n"
          "                        images) for filters whose weights sum to 0\n"
          "                        (laplacian, sobel-x, sobel-y, such custom kernels),\n"
          "                        so that negative responses show darker than grey;\n"
          "                        --delta 0 clips them to black\n"
          "  -b, --border MODE     clamp (default), zero, constant:V, reflect,\n"
          "                        reflect101, wrap or normalize\n"
          "      --no-premultiply  filter images with alpha as stored, every channel\n"
          "                        alike (see below)\n"
          "\n"
          "Device:\n"
          "  -m, --method M        auto (default), buffer, image, tiled, separable or box\n"
          "  -d, --device SPEC     gpu, cpu, accelerator, an index, a name substring or\n"
          "                        platform:type:device; default $OCLCONV_DEVICE, else\n"
          "                        the first GPU, else the first device\n"
          "      --list-devices    list the OpenCL devices and exit\n"
          "\n"
          "Output:\n"
          "  -o, --output-dir DIR  write each INPUT as DIR/its file name; DIR is made\n"
          "                        when missing\n"
          "  -v, --verbose         print the device, the kernel path and timings\n"
          "  -h, --help            show this help and exit\n"
          "  -V, --version         show the versions and exit\n"
          "\n"
          "Any PNG is read; the output keeps the input's bit depth (8 or 16) and\n"
          "channels (a palette becomes RGB, or RGBA with transparency).  Colour in\n"
          "images with alpha is filtered premultiplied by alpha, so that transparent\n"
          "pixels do not bleed into visible ones; alpha is filtered with the weights\n"
          "scaled to sum to 1, and --scale and --delta apply to colour only.  For\n"
          "filters whose weights sum to 0, alpha is kept as it is.\n"
          "\n"
          "Exit status: 0 all written, 1 a file failed, 2 usage error.\n",
          out);
}

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", program);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return -1;
}

/* The library's detail on one line, for an error that must fit on one: line
 * breaks become "; " (a space after a colon), and what does not fit in
 * `size`, a long build log say, is cut with "...". */
static const char *one_line(const char *detail, char *out, size_t size)
{
    size_t n = 0;
    const char *p = detail;
    for (; *p && n + 3 < size; p++) {
        if (*p != '\n') {
            out[n++] = *p;
        } else if (p[1] && n > 0 && out[n - 1] == ':') {
            out[n++] = ' ';
        } else if (p[1]) {
            out[n++] = ';';
            out[n++] = ' ';
        }
    }
    out[n] = '\0';
    if (*p && n >= 3)
        memcpy(out + n - 3, "...", 3);
    return out;
}

/* A decimal number: digits, sign, point and exponent only, so that "inf",
 * "nan" and hexadecimal never pass for a size. */
static int parse_number(const char *s, size_t len, double *out)
{
    char buf[64];
    char *end;
    if (len == 0 || len >= sizeof buf || strspn(s, "0123456789.eE+-") < len)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    *out = strtod(buf, &end);
    return *end == '\0' && errno != ERANGE && isfinite(*out) ? 0 : -1;
}

/* "A" or "AxB" (B = A when absent). */
static int parse_pair(const char *s, double *a, double *b)
{
    const char *x = strchr(s, 'x');
    if (x)
        return parse_number(s, (size_t)(x - s), a) || parse_number(x + 1, strlen(x + 1), b);
    if (parse_number(s, strlen(s), a))
        return -1;
    *b = *a;
    return 0;
}

static int lookup(const char *const *names, int count, const char *s, size_t len)
{
    for (int i = 0; i < count; i++)
        if (strlen(names[i]) == len && strncmp(names[i], s, len) == 0)
            return i;
    return -1;
}

static int set_option(cli_options *o, int id, const char *value)
{
    const char *name = option_table[id].name;
    double a, b;
    int i;
    switch (id) {
    case OPT_FILTER:
        i = lookup(filter_names, FILTER_CUSTOM, value, strlen(value));
        if (i < 0)
            return usage_error("--%s: unknown filter '%s' (gaussian, box, sharpen, emboss, "
                               "laplacian, sobel-x, sobel-y, identity)", name, value);
        o->filter = (filter_kind)i;
        o->filter_given = 1;
        return 0;
    case OPT_RADIUS:
        if (parse_pair(value, &a, &b) || a < 0 || b < 0 || a != floor(a) || b != floor(b) ||
            a > 65535 || b > 65535)
            return usage_error("--%s: '%s' is not a radius (N or RXxRY, whole numbers >= 0)",
                               name, value);
        o->rx = (int)a;
        o->ry = (int)b;
        o->radius_given = 1;
        return 0;
    case OPT_SIGMA:
        if (parse_pair(value, &a, &b) || !(a > 0) || !(b > 0))
            return usage_error("--%s: '%s' is not a sigma (S or SXxSY, numbers > 0)", name,
                               value);
        o->sigma_x = a;
        o->sigma_y = b;
        o->sigma_given = 1;
        return 0;
    case OPT_AMOUNT:
    case OPT_SCALE:
    case OPT_DELTA:
        if (parse_number(value, strlen(value), &a) || fabs(a) > 1e30)
            return usage_error("--%s: '%s' is not a number", name, value);
        if (id == OPT_AMOUNT) {
            o->amount = a;
            o->amount_given = 1;
        } else if (id == OPT_SCALE) {
            o->conv.scale = (float)a;
        } else {
            o->conv.delta = (float)a;
            o->delta_given = 1;
        }
        return 0;
    case OPT_KERNEL:
        o->kernel = value;
        return 0;
    case OPT_KERNEL_FILE:
        o->kernel_file = value;
        return 0;
    case OPT_BORDER: {
        const char *colon = strchr(value, ':');
        size_t len = colon ? (size_t)(colon - value) : strlen(value);
        i = lookup(border_names, OCLCONV_BORDER_NORMALIZE + 1, value, len);
        if (i < 0 || (colon && i != OCLCONV_BORDER_CONSTANT))
            return usage_error("--%s: unknown mode '%s' (clamp, zero, constant:V, reflect, "
                               "reflect101, wrap, normalize)", name, value);
        o->conv.border = (oclconv_border)i;
        o->conv.border_value = 0;
        if (colon) {
            if (parse_number(colon + 1, strlen(colon + 1), &a) || fabs(a) > 1e30)
                return usage_error("--%s: '%s' is not a number in '%s'", name, colon + 1, value);
            o->conv.border_value = (float)a;
        }
        return 0;
    }
    case OPT_NO_PREMULTIPLY:
        o->premultiply = 0;
        return 0;
    case OPT_METHOD: {
        /* The library names its methods; a new one needs no change here. */
        char known[200] = "";
        const char *m;
        for (i = 0; (m = oclconv_method_name((oclconv_method)i)) != NULL; i++) {
            if (strcmp(value, m) == 0) {
                o->conv.method = (oclconv_method)i;
                return 0;
            }
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                     m);
        }
        return usage_error("--%s: unknown method '%s' (%s)", name, value, known);
    }
    case OPT_DEVICE:
        o->device = value;
        return 0;
    case OPT_LIST_DEVICES:
        o->list_devices = 1;
        return 0;
    case OPT_OUTPUT_DIR:
        o->out_dir = value;
        return 0;
    case OPT_VERBOSE:
        o->verbose = 1;
        return 0;
    case OPT_HELP:
        o->help = 1;
        return 0;
    default:
        o->version = 1;
        return 0;
    }
}

/* The options that only make sense together, or not at all together. */
static int check_options(const cli_options *o)
{
    const char *f = filter_names[o->filter];
    if (o->kernel && o->kernel_file)
        return usage_error("--kernel and --kernel-file cannot be used together");
    if ((o->kernel || o->kernel_file) && o->filter_given)
        return usage_error("--%s replaces --filter; give one of them",
                           o->kernel ? "kernel" : "kernel-file");
    if (o->radius_given && o->filter != FILTER_BOX && o->filter != FILTER_GAUSSIAN)
        return usage_error("--radius applies to the box and gaussian filters, not %s", f);
    if (o->sigma_given && o->filter != FILTER_GAUSSIAN)
        return usage_error("--sigma applies to the gaussian filter, not %s", f);
    if (o->amount_given && o->filter != FILTER_SHARPEN)
        return usage_error("--amount applies to the sharpen filter, not %s", f);
    if (o->help || o->version || o->list_devices)
        return 0;
    if (o->out_dir ? o->n_operands < 1 : o->n_operands != 2)
        return usage_error(o->out_dir ? "no input file (see oclconv --help)"
                                      : "expected INPUT.png OUTPUT.png, or -o DIR and inputs "
                                        "(see oclconv --help)");
    return 0;
}

/* Long options as --name=value or --name value, short ones as -x value,
 * -xvalue or clustered flags (-vh); operands may come between options and
 * everything after "--" is an operand. */
static int parse_args(int argc, char **argv, cli_options *o)
{
    memset(o, 0, sizeof *o);
    o->filter = FILTER_GAUSSIAN;
    o->premultiply = 1;
    oclconv_options_init(&o->conv);
    o->operands = malloc((size_t)argc * sizeof *o->operands);
    if (!o->operands)
        return usage_error("out of memory");

    int only_operands = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (only_operands || arg[0] != '-' || arg[1] == '\0') {
            o->operands[o->n_operands++] = argv[i];
        } else if (strcmp(arg, "--") == 0) {
            only_operands = 1;
        } else if (arg[1] == '-') {
            const char *name = arg + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            int id;
            for (id = 0; id < OPT_COUNT; id++)
                if (strlen(option_table[id].name) == len &&
                    strncmp(option_table[id].name, name, len) == 0)
                    break;
            if (id == OPT_COUNT)
                return usage_error("unknown option '%.*s' (see oclconv --help)", (int)len + 2,
                                   arg);
            const char *value = NULL;
            if (option_table[id].takes_value) {
                if (eq)
                    value = eq + 1;
                else if (i + 1 < argc)
                    value = argv[++i];
                else
                    return usage_error("option '--%s' needs a value", option_table[id].name);
            } else if (eq) {
                return usage_error("option '--%s' takes no value", option_table[id].name);
            }
            if (set_option(o, id, value))
                return -1;
        } else {
            for (const char *c = arg + 1; *c; c++) {
                int id;
                for (id = 0; id < OPT_COUNT; id++)
                    if (option_table[id].short_name == *c)
                        break;
                if (id == OPT_COUNT)
                    return usage_error("unknown option '-%c' (see oclconv --help)", *c);
                const char *value = NULL;
                if (option_table[id].takes_value) {
                    if (c[1])
                        value = c + 1;
                    else if (i + 1 < argc)
                        value = argv[++i];
                    else
                        return usage_error("option '-%c' needs a value", *c);
                }
                if (set_option(o, id, value))
                    return -1;
                if (value)
                    break;
            }
        }
    }
    return check_options(o);
}

/* ====== Filter ======================================================= */

/* Reads a kernel file whole, NUL-terminated. */
static char *read_text_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    char *text = NULL;
    size_t len = 0;
    if (!fp) {
        usage_error("%s: %s", path, strerror(errno));
        return NULL;
    }
    text = malloc(KERNEL_FILE_MAX + 1);
    if (!text)
        usage_error("%s: out of memory", path);
    else
        len = fread(text, 1, KERNEL_FILE_MAX + 1, fp);
    if (text && ferror(fp)) {
        usage_error("%s: %s", path, strerror(errno));
    } else if (text && len > KERNEL_FILE_MAX) {
        usage_error("%s: larger than %zu KiB, not a kernel", path, KERNEL_FILE_MAX >> 10);
    } else if (text) {
        text[len] = '\0';
        fclose(fp);
        return text;
    }
    free(text);
    fclose(fp);
    return NULL;
}

/* @return 0, or -1 after saying why. */
static int make_custom_filter(const cli_options *o, oclconv_filter **f)
{
    char *file_text = NULL, why[400];
    kernel_text k;
    int rc = -1;
    if (o->kernel_file && !(file_text = read_text_file(o->kernel_file)))
        return -1;
    if (kernel_text_parse(o->kernel ? o->kernel : file_text, &k, why, sizeof why))
        usage_error("%s: %s", o->kernel ? "--kernel" : o->kernel_file, why);
    else if (oclconv_filter_create(k.width, k.height, k.weights, f) != OCLCONV_OK)
        usage_error("%s: %s", o->kernel ? "--kernel" : o->kernel_file,
                    one_line(oclconv_errmsg(NULL), why, sizeof why));
    else
        rc = 0;
    kernel_text_free(&k);
    free(file_text);
    return rc;
}

static oclconv_status make_builtin_filter(const cli_options *o, oclconv_filter **f)
{
    static const float one = 1;
    switch (o->filter) {
    case FILTER_GAUSSIAN:
        return o->sigma_given ? oclconv_filter_gaussian(o->sigma_x, o->sigma_y, o->rx, o->ry, f)
                              : oclconv_filter_gaussian(2.0, 2.0, o->rx, o->ry, f);
    case FILTER_BOX:
        return o->radius_given ? oclconv_filter_box(o->rx, o->ry, f) : oclconv_filter_box(1, 1, f);
    case FILTER_SHARPEN:
        return oclconv_filter_sharpen(o->amount_given ? (float)o->amount : 1.0f, f);
    case FILTER_EMBOSS:
        return oclconv_filter_emboss(f);
    case FILTER_LAPLACIAN:
        return oclconv_filter_laplacian(f);
    case FILTER_SOBEL_X:
        return oclconv_filter_sobel_x(f);
    case FILTER_SOBEL_Y:
        return oclconv_filter_sobel_y(f);
    case FILTER_IDENTITY:
        return oclconv_filter_create(1, 1, &one, f);
    default:
        return OCLCONV_E_INVALID_ARG;
    }
}

/* @return 0, or -1 after saying why. */
static int make_filter(const cli_options *o, oclconv_filter **f)
{
    if (o->kernel || o->kernel_file)
        return make_custom_filter(o, f);
    char why[400];
    if (make_builtin_filter(o, f) != OCLCONV_OK)
        return usage_error("cannot make the %s filter: %s", filter_names[o->filter],
                           one_line(oclconv_errmsg(NULL), why, sizeof why));
    return 0;
}

/* ====== Temporary output files and signals =========================== */

/* The temporary file being written, for the signal handler to remove.  Both
 * change only while the handled signals are blocked. */
static char temp_path[4096];
static volatile sig_atomic_t temp_active;

static const int handled_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig)
{
    if (temp_active)
        unlink(temp_path);
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns: die of the same signal */
}

static void install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; i++)
        sigaddset(&sa.sa_mask, handled_signals[i]);
    for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; i++)
        sigaction(handled_signals[i], &sa, NULL);
}

static void block_signals(int block)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; i++)
        sigaddset(&set, handled_signals[i]);
    sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

static void remove_temp(void)
{
    block_signals(1);
    if (temp_active)
        unlink(temp_path);
    temp_active = 0;
    block_signals(0);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static char *join_path(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    const char *sep = n > 0 && dir[n - 1] != '/' ? "/" : "";
    char *p = malloc(n + strlen(sep) + strlen(name) + 1);
    if (p)
        sprintf(p, "%s%s%s", dir, sep, name);
    return p;
}

/* ====== One run ====================================================== */

typedef struct {
    const cli_options *opt;
    oclconv_context *ctx;
    oclconv_filter *filter;
    int fw, fh;
    double weight_sum;
    int zero_sum;       /* weights sum to 0: derivatives */
    mode_t file_mode;   /* 0666 less the umask */
    int batch;          /* -o DIR */
    int bar;            /* draw a progress bar on stderr */
    int total, done, failed;
    oclconv_method method;  /* the path of the file's (colour) filtering */
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
    fprintf(stderr, "%s: %s: ", program, path);
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

static double unit_max(oclconv_type t)
{
    return t == OCLCONV_U16 ? 65535.0 : 255.0;
}

static double get_value(const oclconv_image *img, size_t i)
{
    return img->type == OCLCONV_U16 ? ((const uint16_t *)img->data)[i]
                                    : ((const uint8_t *)img->data)[i];
}

/* Rounds half to even and saturates, as the library does for integers. */
static void put_value(oclconv_image *img, size_t i, double v)
{
    double hi = unit_max(img->type);
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
    snprintf(why, why_size, "%s: %s", oclconv_strerror(st), one_line(msg, detail, sizeof detail));
}

/* Colour with alpha, filtered premultiplied (the last channel is alpha).
 * In float: p = c * a / max for colour, a for alpha; the library filters p
 * and a with scale 1 and delta 0; then, with S the sum of the weights,
 *   alpha' = A / S                 (the weights scaled to sum to 1)
 *   c'     = scale * P * max / alpha' + delta   (0 where alpha' <= 0)
 * so an opaque region comes out exactly as without alpha.  For weights that
 * sum to 0 there is no alpha to divide by: c' = scale * P + delta and alpha
 * stays.  The constant border means every straight channel, alpha too, is V
 * outside: premultiplied colour V * V / max but alpha V, two values, so that
 * one case filters a second copy for alpha. */
static int filter_premultiplied(run_state *r, oclconv_image *img, const oclconv_options *user,
                                char *why, size_t why_size)
{
    const double amax = unit_max(img->type);
    const int ch = img->channels, cc = ch - 1;
    const size_t n = (size_t)img->width * (size_t)img->height;
    const double v = user->border_value;
    const int need_alpha = !r->zero_sum;
    const int second_copy = need_alpha && user->border == OCLCONV_BORDER_CONSTANT &&
                            (float)(v * (v / amax)) != (float)v;
    float *buf = malloc(n * (size_t)ch * sizeof *buf);
    float *alpha_buf = second_copy ? malloc(n * (size_t)ch * sizeof *buf) : buf;
    oclconv_image fimg = {buf, img->width, img->height, ch, OCLCONV_F32, 0};
    oclconv_options o = *user;
    oclconv_status st = OCLCONV_OK;
    int rc = -1;

    if (!buf || !alpha_buf) {
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
    if (second_copy)
        memcpy(alpha_buf, buf, n * (size_t)ch * sizeof *buf);

    o.scale = 1;
    o.delta = 0;
    o.border_value = (float)(v * (v / amax));
    st = oclconv_apply(r->ctx, &fimg, &fimg, r->filter, &o);
    if (st == OCLCONV_OK) {
        r->method = oclconv_last_method(r->ctx);
        r->kernel_seconds += oclconv_last_kernel_seconds(r->ctx);
        if (second_copy) {
            fimg.data = alpha_buf;
            o.border_value = (float)v;
            st = oclconv_apply(r->ctx, &fimg, &fimg, r->filter, &o);
            r->kernel_seconds += oclconv_last_kernel_seconds(r->ctx);
        }
    }
    if (st != OCLCONV_OK) {
        library_failure(r, st, why, why_size);
        goto out;
    }

    for (size_t i = 0; i < n; i++) {
        const size_t at = i * (size_t)ch;
        if (!need_alpha) {
            for (int k = 0; k < cc; k++)
                put_value(img, at + (size_t)k,
                          user->scale * (double)buf[at + (size_t)k] + user->delta);
            continue;
        }
        const double a = alpha_buf[at + (size_t)cc] / r->weight_sum;
        for (int k = 0; k < cc; k++)
            put_value(img, at + (size_t)k,
                      a > 0 ? user->scale * (double)buf[at + (size_t)k] * amax / a + user->delta
                            : 0);
        put_value(img, at + (size_t)cc, a);
    }
    rc = 0;
out:
    if (alpha_buf != buf)
        free(alpha_buf);
    free(buf);
    return rc;
}

/* Filters img in place. */
static int filter_image(run_state *r, oclconv_image *img, char *why, size_t why_size)
{
    oclconv_options o = r->opt->conv;
    if (!r->opt->delta_given && r->zero_sum)
        o.delta = img->type == OCLCONV_U16 ? 32768.0f : 128.0f;
    if (r->opt->premultiply && (img->channels == 2 || img->channels == 4))
        return filter_premultiplied(r, img, &o, why, why_size);

    oclconv_status st = oclconv_apply(r->ctx, img, img, r->filter, &o);
    if (st != OCLCONV_OK) {
        library_failure(r, st, why, why_size);
        return -1;
    }
    r->method = oclconv_last_method(r->ctx);
    r->kernel_seconds += oclconv_last_kernel_seconds(r->ctx);
    return 0;
}

/* Writes pic to a temporary file beside `out`, then renames it into place. */
static int write_output(run_state *r, const char *out, const png_io_picture *pic)
{
    const char *base = base_name(out);
    size_t dir_len = (size_t)(base - out);
    char why[300];
    FILE *fp;
    int fd, rc;

    if (!*base)
        return file_error(r, out, "not a file name");
    if (snprintf(temp_path, sizeof temp_path, "%.*s.%s.XXXXXX", (int)dir_len, out, base) >=
        (int)sizeof temp_path)
        return file_error(r, out, "path too long");

    block_signals(1);
    fd = mkstemp(temp_path);
    temp_active = fd >= 0;
    block_signals(0);
    if (fd < 0)
        return file_error(r, out, "cannot create a file in '%.*s': %s",
                          dir_len ? (int)dir_len : 1, dir_len ? out : ".", strerror(errno));

    fchmod(fd, r->file_mode);
    fp = fdopen(fd, "wb");
    if (!fp) {
        snprintf(why, sizeof why, "%s", strerror(errno));
        close(fd);
        rc = -1;
    } else {
        rc = png_io_write(fp, pic, why, sizeof why);
        if (fclose(fp) != 0 && rc == 0) {
            snprintf(why, sizeof why, "write error: %s", strerror(errno));
            rc = -1;
        }
    }
    if (rc == 0) {
        block_signals(1);
        if (rename(temp_path, out) == 0) {
            temp_active = 0;
        } else {
            snprintf(why, sizeof why, "cannot rename the temporary file: %s", strerror(errno));
            rc = -1;
        }
        block_signals(0);
    }
    if (rc) {
        remove_temp();
        return file_error(r, out, "%s", why);
    }
    return 0;
}

static int ensure_context(run_state *r)
{
    if (r->ctx)
        return 0;
    char detail[600];
    oclconv_status st = oclconv_create(r->opt->device, &r->ctx);
    if (st != OCLCONV_OK) {
        clear_bar(r);
        fprintf(stderr, "%s: no usable OpenCL device: %s: %s\n", program, oclconv_strerror(st),
                one_line(oclconv_errmsg(NULL), detail, sizeof detail));
        return -1;
    }
    if (r->opt->verbose)
        fprintf(stderr, "device: %s\n", oclconv_device_name(r->ctx));
    return 0;
}

static const char *layout_name(int channels)
{
    static const char *const names[] = {"?", "gray", "gray+alpha", "RGB", "RGBA"};
    return names[channels >= 1 && channels <= 4 ? channels : 0];
}

/* Filters one file.  @return 0, -1 when the file failed, -2 when nothing more
 * can run (no device). */
static int process_file(run_state *r, const char *in, const char *out)
{
    png_io_picture pic;
    struct stat in_st, out_st;
    char why[600];
    double t0 = seconds_now(), t1, t2;
    size_t built;
    FILE *fp = fopen(in, "rb");

    if (!fp)
        return file_error(r, in, "%s", strerror(errno));
    if (fstat(fileno(fp), &in_st) == 0 && stat(out, &out_st) == 0 &&
        in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino) {
        fclose(fp);
        return file_error(r, in, "input and output are the same file (%s)", out);
    }
    int rc = png_io_read(fp, &pic, why, sizeof why);
    fclose(fp);
    if (rc)
        return file_error(r, in, "%s", why);

    if (ensure_context(r)) {
        png_io_free(&pic);
        return -2;
    }
    built = oclconv_programs_built(r->ctx);
    r->kernel_seconds = 0;
    t1 = seconds_now();
    rc = filter_image(r, &pic.image, why, sizeof why);
    t2 = seconds_now();
    if (rc) {
        png_io_free(&pic);
        return file_error(r, in, "%s", why);
    }
    rc = write_output(r, out, &pic);
    if (rc == 0 && r->opt->verbose) {
        size_t compiled = oclconv_programs_built(r->ctx) - built;
        int alpha = pic.image.channels % 2 == 0;
        clear_bar(r);
        if (r->batch)
            fprintf(stderr, "[%d/%d] ", r->done + 1, r->total);
        fprintf(stderr,
                "%s -> %s: %dx%d %s %d-bit%s, %s %dx%d, %s path, kernels %.2f ms, "
                "filter %.1f ms%s, total %.1f ms\n",
                in, out, pic.image.width, pic.image.height, layout_name(pic.image.channels),
                pic.image.type == OCLCONV_U16 ? 16 : 8,
                alpha ? (r->opt->premultiply ? " (premultiplied)" : " (straight)") : "",
                filter_names[r->opt->kernel || r->opt->kernel_file ? FILTER_CUSTOM
                                                                   : r->opt->filter],
                r->fw, r->fh, oclconv_method_name(r->method), r->kernel_seconds * 1e3,
                (t2 - t1) * 1e3, compiled ? " incl. compiling" : "",
                (seconds_now() - t0) * 1e3);
    } else if (rc == 0 && r->batch && !r->bar) {
        fprintf(stderr, "[%d/%d] %s -> %s\n", r->done + 1, r->total, in, out);
    }
    png_io_free(&pic);
    return rc;
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
        v[i].name = base_name(inputs[i]);
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

static int list_devices(void)
{
    size_t size = 1 << 16;
    char *buf = malloc(size);
    oclconv_status st;
    if (!buf) {
        fprintf(stderr, "%s: out of memory\n", program);
        return EXIT_FILE_FAILED;
    }
    st = oclconv_list_devices(buf, size);
    if (st == OCLCONV_OK) {
        fputs(buf, stdout);
        if (*buf && buf[strlen(buf) - 1] != '\n')
            fputc('\n', stdout);
    } else {
        fprintf(stderr, "%s: cannot list devices: %s: %s\n", program, oclconv_strerror(st),
                one_line(oclconv_errmsg(NULL), buf, size));
    }
    free(buf);
    return st == OCLCONV_OK ? 0 : EXIT_FILE_FAILED;
}

static void print_version(void)
{
    int lib = oclconv_version_number();
    printf("oclconv %d.%d.%d (liboclconv %d.%d.%d, libpng %s)\n", OCLCONV_VERSION_MAJOR,
           OCLCONV_VERSION_MINOR, OCLCONV_VERSION_PATCH, lib / 10000, lib / 100 % 100, lib % 100,
           png_io_libpng_version());
}

/* Where each input goes: -o DIR, or OUTPUT (a folder takes the input's name). */
static char **plan_outputs(const cli_options *o, int *n)
{
    int count = o->out_dir ? o->n_operands : 1;
    char **outs = calloc((size_t)count, sizeof *outs);
    struct stat st;
    if (!outs)
        return NULL;
    for (int i = 0; i < count; i++) {
        if (o->out_dir)
            outs[i] = join_path(o->out_dir, base_name(o->operands[i]));
        else if (stat(o->operands[1], &st) == 0 && S_ISDIR(st.st_mode))
            outs[i] = join_path(o->operands[1], base_name(o->operands[0]));
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

static int run(const cli_options *o)
{
    run_state r;
    char **outs = NULL;
    int *dup = NULL, n = 0, rc = EXIT_FILE_FAILED;
    mode_t mask;

    memset(&r, 0, sizeof r);
    r.opt = o;
    if (make_filter(o, &r.filter))
        return EXIT_USAGE;
    oclconv_filter_size(r.filter, &r.fw, &r.fh);
    {
        const double *w = oclconv_filter_weights(r.filter);
        double abs_sum = 0;
        for (int i = 0; i < r.fw * r.fh; i++) {
            r.weight_sum += w[i];
            abs_sum += fabs(w[i]);
        }
        r.zero_sum = fabs(r.weight_sum) <= 1e-6 * abs_sum;
    }
    if (o->conv.border == OCLCONV_BORDER_NORMALIZE && r.zero_sum) {
        usage_error("--border normalize needs a filter whose weights do not sum to 0");
        oclconv_filter_destroy(r.filter);
        return EXIT_USAGE;
    }

    mask = umask(0);
    umask(mask);
    r.file_mode = 0666 & ~mask;
    install_signal_handlers();

    if (o->out_dir && mkdir(o->out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: %s: cannot make the folder: %s\n", program, o->out_dir,
                strerror(errno));
        goto out;
    }
    outs = plan_outputs(o, &n);
    dup = o->out_dir ? find_duplicates(o->operands, n) : NULL;
    if (!outs || (o->out_dir && !dup)) {
        fprintf(stderr, "%s: out of memory\n", program);
        goto out;
    }
    r.batch = o->out_dir != NULL;
    r.bar = r.batch && !o->verbose && isatty(STDERR_FILENO);
    r.total = n;
    for (int i = 0; i < n; i++) {
        int res;
        draw_bar(&r, base_name(o->operands[i]));
        if (dup && dup[i] >= 0)
            res = file_error(&r, o->operands[i], "skipped: its output %s would replace that of %s",
                             outs[i], o->operands[dup[i]]);
        else
            res = process_file(&r, o->operands[i], outs[i]);
        r.done++;
        if (res < 0)
            r.failed++;
        if (res == -2) {
            r.failed += n - r.done;
            break;
        }
    }
    if (r.bar) {
        draw_bar(&r, "");
        fputc('\n', stderr);
    }
    if (r.batch && r.failed)
        fprintf(stderr, "%s: %d of %d files failed\n", program, r.failed, n);
    rc = r.failed ? EXIT_FILE_FAILED : 0;
out:
    for (int i = 0; outs && i < n; i++)
        free(outs[i]);
    free(outs);
    free(dup);
    oclconv_filter_destroy(r.filter);
    oclconv_destroy(r.ctx);
    return rc;
}

int main(int argc, char **argv)
{
    cli_options o;
    int rc;
    if (parse_args(argc, argv, &o)) {
        rc = EXIT_USAGE;
    } else if (o.help) {
        usage(stdout);
        rc = 0;
    } else if (o.version) {
        print_version();
        rc = 0;
    } else if (o.list_devices) {
        rc = list_devices();
    } else {
        rc = run(&o);
    }
    free(o.operands);
    return rc;
}
