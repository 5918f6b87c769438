/*
 * The test pictures of every PNG colour type and bit depth, and what the
 * command must make of them.  See cli_harness.h.
 */
#include "cli_harness.h"

#include <errno.h>
#include <math.h>
#include <setjmp.h>

#include "image_io.h"
#include "reference.h"
#include "util.h"

const png_case cases[] = {
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


_Static_assert(sizeof cases / sizeof cases[0] == N_CASES, "N_CASES counts cases[]");

picture pictures[N_CASES];

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


/* The weights of the library filter that the call which returned `st` made
 * in *made; the filter is then destroyed.  (A pointer to the pointer: the
 * call and the read of *made are then sequenced.) */
weights weights_of(oclconv_status st, oclconv_filter **made)
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

/* Float pictures (TIFF) span 0 to 1, as the command takes them. */
static double type_max(oclconv_type t)
{
    return t == OCLCONV_F32 ? 1 : t == OCLCONV_U16 ? 65535 : 255;
}

static double sample(const oclconv_image *img, size_t i)
{
    switch (img->type) {
    case OCLCONV_F32: return ((const float *)img->data)[i];
    case OCLCONV_U16: return ((const uint16_t *)img->data)[i];
    default: return ((const uint8_t *)img->data)[i];
    }
}

/* Whether integer `got` is what rounding (half to even) and saturating a
 * value within `err` of `exact` can give; for floats (hi 1), whether it is
 * within `err` and float rounding of `exact`. */
static int within(double got, double exact, double err, double hi)
{
    if (hi == 1)
        return fabs(got - exact) <= err + 1e-6 * (fabs(exact) + 1e-3);
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
    /* The constant border's part, V * V / max in colour and V in alpha, is
     * added in double: the reference of a zero border, plus V times that of
     * a zero image whose border is 1.  (V * V / max may be past a float's
     * range.) */
    const int constant = user->border == OCLCONV_BORDER_CONSTANT && v != 0;
    oclconv_options o = *user;
    ref_result rc, rb;
    o.scale = 1;
    o.delta = 0;
    o.border_value = 0;
    if (ref_convolve(&pm, k->w, k->h, k->weights, &o, &rc))
        exit(TEST_HARD_ERROR);
    if (constant) {
        oclconv_image zeros = {calloc(n, sizeof(float)), in->width, in->height, 1,
                               OCLCONV_F32, 0};
        o.border_value = 1;
        if (!zeros.data || ref_convolve(&zeros, k->w, k->h, k->weights, &o, &rb))
            exit(TEST_HARD_ERROR);
        free(zeros.data);
        const double vc = v * (v / amax);
        for (size_t i = 0; i < n; i++)
            for (int c = 0; c < ch; c++) {
                const size_t j = i * (size_t)ch + (size_t)c;
                const double vb = c == cc ? v : vc;
                rc.value[j] += vb * rb.value[i];
                rc.magnitude[j] += fabs(vb) * rb.magnitude[i];
            }
        ref_result_free(&rb);
    }

    for (size_t i = 0; i < n; i++) {
        const size_t ai = i * (size_t)ch + (size_t)cc;
        const double alpha_in = sample(in, ai), alpha_got = sample(out, ai);
        const double big_a = rc.value[ai], a = big_a / s;
        const double err_a = 1e-5 * rc.magnitude[ai];
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
    free(pm.data);
    return bad;
}

/* Reads an output of the command and compares it with the reference for
 * the input picture: straight convolution, or premultiplied alpha. */
int output_differs(const char *path, const picture *p, const weights *k,
                   const oclconv_options *opt, int premultiplied, char *why, size_t why_size)
{
    png_io_picture out;
    char detail[300] = "";
    int bad = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(why, why_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = image_io_read(fp, &out, detail, sizeof detail);
    fclose(fp);
    if (rc) {
        snprintf(why, why_size, "%s: %s", path, detail);
        return -1;
    }
    const oclconv_image *in = &p->decoded, *got = &out.image;
    if (got->width != in->width || got->height != in->height ||
        got->channels != in->channels || got->type != in->type) {
        snprintf(why, why_size, "%s: %dx%d, %d channels, type %d; wanted %dx%d, %d channels, "
                 "type %d", path, got->width, got->height, got->channels, got->type, in->width,
                 in->height, in->channels, in->type);
        bad = 1;
    } else if (premultiplied && in->channels % 2 == 0) {
        bad = compare_premultiplied(in, got, k, opt, detail, sizeof detail) != 0;
        if (bad)
            snprintf(why, why_size, "%s (premultiplied): %s", path, detail);
    } else {
        ref_result ref;
        if (ref_convolve(in, k->w, k->h, k->weights, opt, &ref))
            exit(TEST_HARD_ERROR);
        bad = ref_compare(got, &ref, detail, sizeof detail) != 0;
        if (bad)
            snprintf(why, why_size, "%s: %s", path, detail);
        ref_result_free(&ref);
    }
    png_io_free(&out);
    return bad ? -1 : 0;
}

int case_index(const char *name)
{
    for (int i = 0; i < N_CASES; i++)
        if (strcmp(cases[i].name, name) == 0)
            return i;
    exit(TEST_HARD_ERROR);
}

const char *input(const char *name)
{
    return at("in/%s.png", name);
}

void cli_pictures_make(void)
{
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    make_dir(at("in"));
    for (int i = 0; i < N_CASES; i++) {
        make_picture(&cases[i], &rng, &pictures[i]);
        write_picture(input(cases[i].name), &cases[i], &pictures[i]);
    }
}

void cli_pictures_free(void)
{
    for (int i = 0; i < N_CASES; i++) {
        free(pictures[i].stored);
        free(pictures[i].decoded.data);
    }
}
