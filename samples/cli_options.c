/*
 * The command's options: parsing, checking, and the filter they make.
 */
#include "cli_options.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_text.h"

/* A kernel file larger than this is certainly not a kernel. */
#define KERNEL_FILE_MAX ((size_t)1 << 20)

const char *const cli_program = "oclconv";

/* ====== Options ====================================================== */

const char *const cli_filter_names[] = {"gaussian",  "box",     "sharpen",  "emboss",
                                           "laplacian", "sobel-x", "sobel-y", "identity",
                                           "custom"};

static const char *const border_names[] = {"clamp",      "zero", "constant", "reflect",
                                           "reflect101", "wrap", "normalize"};
/* --calibrate's modes, in oclconv_calibration's order from OCLCONV_CALIBRATE_ON. */
static const char *const calibrate_names[] = {"on", "off", "stored", "fresh"};


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
    OPT_CALIBRATE,
    OPT_DEVICE,
    OPT_LIST_DEVICES,
    OPT_OUTPUT_DIR,
    OPT_PNG_LEVEL,
    OPT_PNG_FILTER,
    OPT_QUALITY,
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
    [OPT_CALIBRATE] = {"calibrate", 0, 1},
    [OPT_DEVICE] = {"device", 'd', 1},
    [OPT_LIST_DEVICES] = {"list-devices", 0, 0},
    [OPT_OUTPUT_DIR] = {"output-dir", 'o', 1},
    [OPT_PNG_LEVEL] = {"png-level", 0, 1},
    [OPT_PNG_FILTER] = {"png-filter", 0, 1},
    [OPT_QUALITY] = {"quality", 0, 1},
    [OPT_VERBOSE] = {"verbose", 'v', 0},
    [OPT_HELP] = {"help", 'h', 0},
    [OPT_VERSION] = {"version", 'V', 0},
};
void cli_usage(FILE *out)
{
    fputs("Usage: oclconv [OPTION]... INPUT OUTPUT\n"
          "  or:  oclconv [OPTION]... -o DIR INPUT...\n"
          "Filter PNG, JPEG and TIFF images by convolution on an OpenCL device.\n"
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
          "                        images, 0.5 for float TIFFs) for filters whose\n"
          "                        weights sum to 0\n"
          "                        (laplacian, sobel-x, sobel-y, such custom kernels),\n"
          "                        so that negative responses show darker than grey;\n"
          "                        --delta 0 clips them to black\n"
          "  -b, --border MODE     clamp (default), zero, constant:V, reflect,\n"
          "                        reflect101, wrap or normalize\n"
          "      --no-premultiply  filter images with alpha as stored, every channel\n"
          "                        alike (see below)\n"
          "\n"
          "Device:\n"
          "  -m, --method M        auto (default), buffer, image, tiled, separable, box,\n"
          "                        runs or fft\n"
          "      --calibrate MODE  how auto picks: on (time the paths once a device and\n"
          "                        kind of job, and remember), off (fixed rules), stored\n"
          "                        (what was remembered, never timing) or fresh (time\n"
          "                        again); default $OCLCONV_CALIBRATE, else on.  The\n"
          "                        folder: $OCLCONV_CALIBRATION_DIR, else\n"
          "                        $XDG_CACHE_HOME/oclconv, else ~/.cache/oclconv\n"
          "  -d, --device SPEC     gpu, cpu, accelerator, an index, a name substring or\n"
          "                        platform:type:device; default $OCLCONV_DEVICE, else\n"
          "                        the first GPU, else the first device\n"
          "      --list-devices    list the OpenCL devices and exit\n"
          "\n"
          "Output:\n"
          "  -o, --output-dir DIR  write each INPUT as DIR/its file name; DIR is made\n"
          "                        when missing\n"
          "      --png-level N     zlib's level for PNG outputs, 0 (fastest, largest)\n",
          out);
    fprintf(out,
            "                        to 9 (smallest); default %d\n"
            "      --png-filter F    the row filters libpng tries: none, sub, up,\n"
            "                        average, paeth or all; default %s\n",
            CLI_PNG_LEVEL, png_io_filter_names[CLI_PNG_FILTER]);
    fprintf(out,
            "      --quality N       JPEG outputs' quality, 1 to 100; default %d\n",
            IMAGE_IO_JPEG_QUALITY);
    fputs("                        (on photographs, files 6 % larger than libpng's own\n"
          "                        6 and all make, written about 3 times as fast)\n"
          "  -v, --verbose         print the device, the kernel path and timings\n"
          "  -h, --help            show this help and exit\n"
          "  -V, --version         show the versions and exit\n"
          "\n"
          "An INPUT or OUTPUT of '-' is standard input or output.  A character\n"
          "device or FIFO is written into; any other output goes through a\n"
          "temporary file and a rename, keeping an old file's permissions.\n"
          "\n"
          "An input's format comes from its content: any PNG; baseline and\n"
          "progressive JPEG (turned as its EXIF orientation says); TIFF of 8 or\n"
          "16 bits or 32-bit float (filtered as float, nominally 0 to 1).  An\n"
          "output's comes from its extension: .jpg or .jpeg, .tif or .tiff, else\n"
          "PNG.  The output keeps the input's bit depth and channels where its\n"
          "format can (JPEG: 8 bits, no alpha; PNG: float becomes 16 bits; a\n"
          "palette becomes RGB, or RGBA with transparency), and its ICC profile.\n"
          "\n"
          "Colour in images with alpha is filtered premultiplied by alpha, so that\n"
          "transparent pixels do not bleed into visible ones; alpha is filtered\n"
          "with the weights scaled to sum to 1, and --scale and --delta apply to\n"
          "colour only.  For filters whose weights sum to 0, alpha is kept as it is.\n"
          "\n"
          "Exit status: 0 all written, 1 a file failed, 2 usage error.\n",
          out);
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", cli_program);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return -1;
}

const char *cli_one_line(const char *detail, char *out, size_t size)
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
 * "nan" and hexadecimal never pass for a size.  One past a double's range
 * comes back as +-HUGE_VAL, or as +-DBL_MIN when it is too small, never as
 * 0: the range checks below then name the real reason. */
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
    if (*end != '\0')
        return -1;
    if (errno == ERANGE && fabs(*out) < 1)
        *out = copysign(DBL_MIN, *out);
    return 0;
}

/* The largest --scale, --delta, --amount or border value taken. */
#define VALUE_MAX 1e30

/* Checks that a value parsed for `name` (quoted as `text`) can become a
 * float and stay one: 0, or a magnitude from FLT_MIN, the smallest normal
 * float (a device may flush smaller ones to 0), up to VALUE_MAX.
 * @return 0, or -1 after saying why. */
static int check_float(const char *name, const char *text, double v)
{
    if (v != 0 && fabs(v) < FLT_MIN)
        return cli_usage_error("--%s: '%s' is too small: a value other than 0 needs a magnitude "
                               "of at least %.3g, the smallest normal float", name, text,
                               (double)FLT_MIN);
    if (fabs(v) > VALUE_MAX)
        return cli_usage_error("--%s: '%s' is too large: at most %g in magnitude", name, text,
                               VALUE_MAX);
    return 0;
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
        i = lookup(cli_filter_names, FILTER_CUSTOM, value, strlen(value));
        if (i < 0)
            return cli_usage_error("--%s: unknown filter '%s' (gaussian, box, sharpen, emboss, "
                               "laplacian, sobel-x, sobel-y, identity)", name, value);
        o->filter = (filter_kind)i;
        o->filter_given = 1;
        return 0;
    case OPT_RADIUS:
        if (parse_pair(value, &a, &b) || a < 0 || b < 0 || a != floor(a) || b != floor(b) ||
            a > 65535 || b > 65535)
            return cli_usage_error("--%s: '%s' is not a radius (N or RXxRY, whole numbers >= 0)",
                               name, value);
        o->rx = (int)a;
        o->ry = (int)b;
        o->radius_given = 1;
        return 0;
    case OPT_SIGMA:
        if (parse_pair(value, &a, &b) || !(a > 0) || !(b > 0) || !isfinite(a) || !isfinite(b))
            return cli_usage_error("--%s: '%s' is not a sigma (S or SXxSY, numbers > 0)", name,
                               value);
        o->sigma_x = a;
        o->sigma_y = b;
        o->sigma_given = 1;
        return 0;
    case OPT_AMOUNT:
    case OPT_SCALE:
    case OPT_DELTA:
        if (parse_number(value, strlen(value), &a))
            return cli_usage_error("--%s: '%s' is not a number", name, value);
        if (check_float(name, value, a))
            return -1;
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
            return cli_usage_error("--%s: unknown mode '%s' (clamp, zero, constant:V, reflect, "
                               "reflect101, wrap, normalize)", name, value);
        o->conv.border = (oclconv_border)i;
        o->conv.border_value = 0;
        if (colon) {
            if (parse_number(colon + 1, strlen(colon + 1), &a))
                return cli_usage_error("--%s: '%s' is not a number in '%s'", name, colon + 1,
                                       value);
            if (check_float(name, value, a))
                return -1;
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
        return cli_usage_error("--%s: unknown method '%s' (%s)", name, value, known);
    }
    case OPT_CALIBRATE:
        i = lookup(calibrate_names, 4, value, strlen(value));
        if (i < 0)
            return cli_usage_error("--%s: unknown mode '%s' (on, off, stored, fresh)", name, value);
        o->calibrate = (oclconv_calibration)(OCLCONV_CALIBRATE_ON + i);
        return 0;
    case OPT_DEVICE:
        o->device = value;
        return 0;
    case OPT_LIST_DEVICES:
        o->list_devices = 1;
        return 0;
    case OPT_OUTPUT_DIR:
        o->out_dir = value;
        return 0;
    case OPT_PNG_LEVEL:
        if (strlen(value) != 1 || value[0] < '0' || value[0] > '9')
            return cli_usage_error("--%s: '%s' is not a level from 0 to 9", name, value);
        o->png.level = value[0] - '0';
        return 0;
    case OPT_PNG_FILTER:
        i = lookup(png_io_filter_names, PNG_IO_FILTERS, value, strlen(value));
        if (i < 0)
            return cli_usage_error("--%s: unknown filter '%s' (none, sub, up, average, paeth, "
                                   "all)", name, value);
        o->png.filter = (png_io_filter)i;
        return 0;
    case OPT_QUALITY: {
        char *end;
        errno = 0;
        long q = strtol(value, &end, 10);
        if (end == value || *end || errno || q < 1 || q > 100)
            return cli_usage_error("--%s: '%s' is not a quality from 1 to 100", name, value);
        o->quality = (int)q;
        return 0;
    }
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
    const char *f = cli_filter_names[o->filter];
    if (o->kernel && o->kernel_file)
        return cli_usage_error("--kernel and --kernel-file cannot be used together");
    if ((o->kernel || o->kernel_file) && o->filter_given)
        return cli_usage_error("--%s replaces --filter; give one of them",
                           o->kernel ? "kernel" : "kernel-file");
    if (o->radius_given && o->filter != FILTER_BOX && o->filter != FILTER_GAUSSIAN)
        return cli_usage_error("--radius applies to the box and gaussian filters, not %s", f);
    if (o->sigma_given && o->filter != FILTER_GAUSSIAN)
        return cli_usage_error("--sigma applies to the gaussian filter, not %s", f);
    if (o->amount_given && o->filter != FILTER_SHARPEN)
        return cli_usage_error("--amount applies to the sharpen filter, not %s", f);
    if (o->out_dir && strcmp(o->out_dir, "-") == 0)
        return cli_usage_error("--output-dir: '-' is not a folder (standard output takes one "
                               "file: give INPUT.png -)");
    if (o->help || o->version || o->list_devices)
        return 0;
    if (o->out_dir ? o->n_operands < 1 : o->n_operands != 2)
        return cli_usage_error(o->out_dir ? "no input file (see oclconv --help)"
                                      : "expected INPUT.png OUTPUT.png, or -o DIR and inputs "
                                        "(see oclconv --help)");
    return 0;
}

/* Long options as --name=value or --name value, short ones as -x value,
 * -xvalue or clustered flags (-vh); operands may come between options and
 * everything after "--" is an operand. */
int cli_parse_args(int argc, char **argv, cli_options *o)
{
    memset(o, 0, sizeof *o);
    o->filter = FILTER_GAUSSIAN;
    o->premultiply = 1;
    o->png.level = CLI_PNG_LEVEL;
    o->png.filter = CLI_PNG_FILTER;
    o->quality = IMAGE_IO_JPEG_QUALITY;
    oclconv_options_init(&o->conv);
    o->operands = malloc((size_t)argc * sizeof *o->operands);
    if (!o->operands)
        return cli_usage_error("out of memory");

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
                return cli_usage_error("unknown option '%.*s' (see oclconv --help)", (int)len + 2,
                                   arg);
            const char *value = NULL;
            if (option_table[id].takes_value) {
                if (eq)
                    value = eq + 1;
                else if (i + 1 < argc)
                    value = argv[++i];
                else
                    return cli_usage_error("option '--%s' needs a value", option_table[id].name);
            } else if (eq) {
                return cli_usage_error("option '--%s' takes no value", option_table[id].name);
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
                    return cli_usage_error("unknown option '-%c' (see oclconv --help)", *c);
                const char *value = NULL;
                if (option_table[id].takes_value) {
                    if (c[1])
                        value = c + 1;
                    else if (i + 1 < argc)
                        value = argv[++i];
                    else
                        return cli_usage_error("option '-%c' needs a value", *c);
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
        cli_usage_error("%s: %s", path, strerror(errno));
        return NULL;
    }
    text = malloc(KERNEL_FILE_MAX + 1);
    if (!text)
        cli_usage_error("%s: out of memory", path);
    else
        len = fread(text, 1, KERNEL_FILE_MAX + 1, fp);
    if (text && ferror(fp)) {
        cli_usage_error("%s: %s", path, strerror(errno));
    } else if (text && len > KERNEL_FILE_MAX) {
        cli_usage_error("%s: larger than %zu KiB, not a kernel", path, KERNEL_FILE_MAX >> 10);
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
        cli_usage_error("%s: %s", o->kernel ? "--kernel" : o->kernel_file, why);
    else if (oclconv_filter_create(k.width, k.height, k.weights, f) != OCLCONV_OK)
        cli_usage_error("%s: %s", o->kernel ? "--kernel" : o->kernel_file,
                    cli_one_line(oclconv_errmsg(NULL), why, sizeof why));
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
int cli_make_filter(const cli_options *o, oclconv_filter **f)
{
    if (o->kernel || o->kernel_file)
        return make_custom_filter(o, f);
    char why[400];
    if (make_builtin_filter(o, f) != OCLCONV_OK)
        return cli_usage_error("cannot make the %s filter: %s", cli_filter_names[o->filter],
                           cli_one_line(oclconv_errmsg(NULL), why, sizeof why));
    return 0;
}
