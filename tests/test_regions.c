/*
 * Regions of a larger image (oclconv_apply_region()) and images run in
 * strips of rows (options.max_device_bytes, OCLCONV_DEVICE_BYTES): each
 * result is that rectangle of the reference on the whole image, under
 * every border, at every edge and corner, from a source that is the whole
 * image or only the pixels the windows read, in padded or packed rows, the
 * destination in its own memory or in the source's; and what the caller
 * supplies short or wrong is refused before the destination is touched.
 * The regions and strips again in bands through pinned staging buffers.
 */
#include "reference.h"
#include "test.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* The rectangle x, y, w x h of a whole-image reference. */
static ref_result crop(const ref_result *whole, int x, int y, int w, int h)
{
    ref_result r = {w, h, whole->channels, NULL, NULL};
    size_t n = (size_t)w * h * whole->channels;
    r.value = malloc(n * sizeof *r.value);
    r.magnitude = malloc(n * sizeof *r.magnitude);
    if (!r.value || !r.magnitude)
        exit(TEST_HARD_ERROR);
    for (int j = 0; j < h; j++) {
        size_t from = ((size_t)(y + j) * whole->width + x) * whole->channels;
        size_t to = (size_t)j * w * whole->channels, m = (size_t)w * whole->channels;
        memcpy(r.value + to, whole->value + from, m * sizeof *r.value);
        memcpy(r.magnitude + to, whole->magnitude + from, m * sizeof *r.magnitude);
    }
    return r;
}

/* A copy of the rectangle x, y, w x h of an image, in memory of its own
 * with rows padded by `pad` bytes. */
static oclconv_image cut(const oclconv_image *img, int x, int y, int w, int h, size_t pad)
{
    uint64_t unused = 1;
    oclconv_image out = image_random(&unused, w, h, img->channels, img->type, pad);
    size_t px = value_size(img->type) * (size_t)img->channels;
    size_t stride = img->stride ? img->stride : px * (size_t)img->width;
    size_t out_stride = out.stride ? out.stride : px * (size_t)w;
    for (int j = 0; j < h; j++)
        memcpy((char *)out.data + (size_t)j * out_stride,
               (const char *)img->data + (size_t)(y + j) * stride + (size_t)x * px,
               (size_t)w * px);
    return out;
}

/* The positions lo .. hi - 1 a destination range d0 .. d1 - 1 reads of n,
 * reach r each side: cut to the image, or all of it where WRAP crosses. */
static void needed(int d0, int d1, int r, int n, int wrap, int *lo, int *hi)
{
    *lo = d0 - r;
    *hi = d1 + r;
    if (wrap && (*lo < 0 || *hi > n)) {
        *lo = 0;
        *hi = n;
    }
    *lo = *lo < 0 ? 0 : *lo;
    *hi = *hi > n ? n : *hi;
}

/* Sources: the whole image (0), or only the pixels the windows read, in
 * padded rows (1), packed (2: on a device that shares the host's memory,
 * the kernels read them where they lie), packed with the destination in
 * their own memory, the rectangle where it lies (3), or the whole packed
 * (4: full-width strips read where they lie, rows into it). */
enum { SOURCES = 5 };
static const char *const sources[SOURCES] = {"the whole", "its halo", "its packed halo",
                                             "its packed halo, in place", "the packed whole"};

static int region_case(oclconv_context *ctx, const oclconv_image *whole, const ref_result *ref,
                       const oclconv_filter *f, const oclconv_options *opt, oclconv_type dst_type,
                       int x, int y, int w, int h, int minimal, const char *what)
{
    int fw, fh, x0 = 0, y0 = 0, x1 = whole->width, y1 = whole->height;
    oclconv_filter_size(f, &fw, &fh);
    if (minimal >= 1 && minimal <= 3) {
        int wrap = opt->border == OCLCONV_BORDER_WRAP;
        needed(x, x + w, fw / 2, whole->width, wrap, &x0, &x1);
        needed(y, y + h, fh / 2, whole->height, wrap, &y0, &y1);
    }
    oclconv_image src = cut(whole, x0, y0, x1 - x0, y1 - y0, minimal >= 2 ? 0 : 24);
    oclconv_image probe = image_random(&(uint64_t){3}, w, h, whole->channels, dst_type, 8);
    oclconv_image dst = image_like(&probe, dst_type, 8);
    image_free(&probe);
    int in_place = minimal == 3 && dst_type == whole->type;
    oclconv_image own = dst;
    if (in_place) {
        size_t px = value_size(dst_type) * (size_t)whole->channels;
        dst.stride = px * (size_t)src.width;
        dst.data = (char *)src.data + (size_t)(y - y0) * dst.stride + (size_t)(x - x0) * px;
    }
    oclconv_region where = {whole->width, whole->height, x0, y0, x, y};
    ref_result part = crop(ref, x, y, w, h);
    char why[256] = "";
    long bad = -1;
    oclconv_status s = oclconv_apply_region(ctx, &src, &where, &dst, f, opt);
    if (s == OCLCONV_OK)
        bad = ref_compare(&dst, &part, why, sizeof why);
    if (s != OCLCONV_OK || bad != 0 || (!in_place && !image_padding_intact(&dst)))
        TEST_FAIL_("%s %s %s->%s cn=%d: region %dx%d at (%d, %d) of %dx%d from %s: %s %ld bad %s",
                   what, border_name(opt->border), type_name(whole->type), type_name(dst_type),
                   whole->channels, w, h, x, y, whole->width, whole->height, sources[minimal],
                   oclconv_strerror(s), bad, why);
    ref_result_free(&part);
    image_free(&src);
    image_free(&own);
    return s == OCLCONV_OK && bad == 0;
}

static oclconv_filter *filter_of(int kind, uint64_t *rng)
{
    oclconv_filter *f = NULL;
    if (kind == 0) { /* 2-D, 5x3 of both signs */
        float w[15];
        for (int k = 0; k < 15; k++)
            w[k] = (float)rng_uniform(rng, -0.2, 0.5);
        ASSERT_OK(NULL, oclconv_filter_create(5, 3, w, &f));
    } else if (kind == 1) {
        ASSERT_OK(NULL, oclconv_filter_gaussian(1.2, 0.9, 3, 2, &f));
    } else if (kind == 2) {
        ASSERT_OK(NULL, oclconv_filter_box(4, 3, &f));
    } else { /* from 11 taps: the running sums on CPUs */
        ASSERT_OK(NULL, oclconv_filter_box(6, 5, &f));
    }
    return f;
}

/* Taps that reach around a short image several times: two rows of a
 * 40x6 image under 3x25 and 3x41 filters, WRAP and REFLECT, from the whole
 * (WRAP's runs, and past six runs the whole height, which the kernels
 * wrap themselves). */
static void far_reach(oclconv_context *ctx, uint64_t *rng)
{
    oclconv_image whole = image_random(rng, 40, 6, 2, OCLCONV_F32, 0);
    for (int ry = 12; ry <= 20; ry += 8)
        for (int b = OCLCONV_BORDER_REFLECT; b <= OCLCONV_BORDER_WRAP; b++) {
            oclconv_filter *g = NULL;
            ASSERT_OK(NULL, oclconv_filter_gaussian(0.8, ry / 2.0, 1, ry, &g));
            oclconv_options opt = border_options((oclconv_border)b, 0);
            ref_result ref = ref_of_filter(&whole, g, &opt);
            ref_result want = crop(&ref, 0, 2, 40, 2);
            oclconv_image dst = image_random(rng, 40, 2, 2, OCLCONV_F32, 0);
            oclconv_region where = {40, 6, 0, 0, 0, 2};
            char why[256] = "";
            oclconv_status st = oclconv_apply_region(ctx, &whole, &where, &dst, g, &opt);
            long bad = st == OCLCONV_OK ? ref_compare(&dst, &want, why, sizeof why) : -1;
            if (bad != 0)
                TEST_FAIL_("rows 2-3 of 40x6, 3x%d filter, %s: %s (%s) %ld bad %s", 2 * ry + 1,
                           border_name(opt.border), oclconv_strerror(st), oclconv_errmsg(ctx),
                           bad, why);
            ref_result_free(&ref);
            ref_result_free(&want);
            image_free(&dst);
            oclconv_filter_destroy(g);
        }
    image_free(&whole);
}

/* Every border at every edge and corner, one pixel, none touching an edge,
 * a full-width strip, and the whole through the region call. */
static void regions(oclconv_context *ctx, uint64_t *rng)
{
    static const oclconv_type types[][2] = {{OCLCONV_U8, OCLCONV_U8},
                                            {OCLCONV_F32, OCLCONV_F32},
                                            {OCLCONV_U16, OCLCONV_U16},
                                            {OCLCONV_U8, OCLCONV_F32}};
    const int W = 41, H = 23;
    const int rects[][4] = {{0, 0, 9, 6},   {32, 0, 9, 6},  {0, 17, 9, 6}, {32, 17, 9, 6},
                            {15, 0, 10, 5}, {0, 8, 6, 7},   {35, 9, 6, 4}, {14, 19, 8, 4},
                            {0, 0, 1, 1},   {40, 22, 1, 1}, {20, 11, 1, 1}, {12, 7, 17, 9},
                            {0, 9, 41, 5},  {0, 0, 41, 23}};
    int cases = 0, passed = 0;
    static const char *const kinds[] = {"2-D 5x3", "Gaussian 7x5", "box 9x7", "box 13x11"};
    for (int b = 0; b <= OCLCONV_BORDER_NORMALIZE; b++)
        for (int kind = 0; kind < 4; kind++) {
            int t = (b + kind) % 4, cn = 1 + (b * 3 + kind) % 4;
            oclconv_image whole = image_random(rng, W, H, cn, types[t][0], 0);
            oclconv_filter *f = filter_of(kind, rng);
            oclconv_options opt = border_options((oclconv_border)b, 42);
            ref_result ref = ref_of_filter(&whole, f, &opt);
            for (size_t r = 0; r < sizeof rects / sizeof *rects; r++)
                for (int minimal = 0; minimal < SOURCES; minimal++, cases++)
                    passed += region_case(ctx, &whole, &ref, f, &opt, types[t][1], rects[r][0],
                                          rects[r][1], rects[r][2], rects[r][3], minimal,
                                          kinds[kind]);
            ref_result_free(&ref);
            oclconv_filter_destroy(f);
            image_free(&whole);
        }
    printf("regions: %d of %d cases pass\n", passed, cases);
}

/* A packed copy of an image in a buffer of ctx's. */
static cl_mem buffer_of(oclconv_context *ctx, const oclconv_image *img)
{
    size_t row = value_size(img->type) * (size_t)img->channels * (size_t)img->width;
    char *packed = malloc(row * (size_t)img->height);
    if (!packed)
        exit(TEST_HARD_ERROR);
    for (int y = 0; y < img->height; y++)
        memcpy(packed + row * (size_t)y, (char *)img->data + (size_t)y * img->stride, row);
    cl_int err;
    cl_mem m = clCreateBuffer(oclconv_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              row * (size_t)img->height, packed, &err);
    free(packed);
    if (err != CL_SUCCESS)
        exit(TEST_HARD_ERROR);
    return m;
}

/* Device-resident regions: every border, corners, one pixel and the
 * interior, from the halo alone, waiting on an event and giving one. */
static void regions_cl(oclconv_context *ctx, uint64_t *rng)
{
    const int W = 37, H = 21, rects[][4] = {{0, 0, 7, 5}, {30, 16, 7, 5}, {18, 10, 1, 1},
                                            {10, 6, 15, 8}, {0, 3, 37, 6}};
    int cases = 0, passed = 0;
    for (int b = 0; b <= OCLCONV_BORDER_NORMALIZE; b++) {
        cl_int err;
        cl_event gate = clCreateUserEvent(oclconv_cl_context(ctx), &err);
        int cn = 1 + b % 4;
        oclconv_type type = b % 2 ? OCLCONV_F32 : OCLCONV_U8;
        oclconv_image whole = image_random(rng, W, H, cn, type, 0);
        oclconv_filter *f = filter_of(b % 3, rng);
        oclconv_options opt = border_options((oclconv_border)b, 5);
        ref_result ref = ref_of_filter(&whole, f, &opt);
        int fw, fh;
        oclconv_filter_size(f, &fw, &fh);
        for (size_t r = 0; r < sizeof rects / sizeof *rects; r++, cases++) {
            int x = rects[r][0], y = rects[r][1], w = rects[r][2], h = rects[r][3];
            int x0, x1, y0, y1, wrap = b == OCLCONV_BORDER_WRAP;
            needed(x, x + w, fw / 2, W, wrap, &x0, &x1);
            needed(y, y + h, fh / 2, H, wrap, &y0, &y1);
            oclconv_image part = cut(&whole, x0, y0, x1 - x0, y1 - y0, 24);
            oclconv_image out = image_random(rng, w, h, cn, type, 0);
            cl_mem in = buffer_of(ctx, &part), res = buffer_of(ctx, &out);
            oclconv_cl_image a = {in, part.width, part.height, cn, type};
            oclconv_cl_image d = {res, w, h, cn, type};
            oclconv_region where = {W, H, x0, y0, x, y};
            cl_event done = NULL;
            long bad = -1;
            char why[256] = "";
            oclconv_status s = oclconv_apply_region_cl(ctx, &a, &where, &d, f, &opt, 1, &gate, &done);
            if (s == OCLCONV_OK && r == 0) { /* nothing ran before the gate opened */
                cl_int state = CL_COMPLETE;
                clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state,
                               NULL);
                ASSERT(state != CL_COMPLETE);
                ASSERT(clSetUserEventStatus(gate, CL_COMPLETE) == CL_SUCCESS);
            }
            if (s == OCLCONV_OK && done && clWaitForEvents(1, &done) == CL_SUCCESS &&
                clEnqueueReadBuffer(oclconv_cl_queue(ctx), res, CL_TRUE, 0, image_bytes(&out),
                                    out.data, 0, NULL, NULL) == CL_SUCCESS) {
                ref_result want = crop(&ref, x, y, w, h);
                bad = ref_compare(&out, &want, why, sizeof why);
                ref_result_free(&want);
            }
            if (bad == 0)
                passed++;
            else
                TEST_FAIL_("device-resident %s cn=%d: region %dx%d at (%d, %d): %s (%s) %ld bad %s",
                           border_name(opt.border), cn, w, h, x, y, oclconv_strerror(s),
                           oclconv_errmsg(ctx), bad, why);
            if (done)
                clReleaseEvent(done);
            clReleaseMemObject(in);
            clReleaseMemObject(res);
            image_free(&part);
            image_free(&out);
        }
        ref_result_free(&ref);
        oclconv_filter_destroy(f);
        image_free(&whole);
        clReleaseEvent(gate);
    }
    printf("device-resident regions: %d of %d cases pass\n", passed, cases);
}

/* What a caller supplies short or wrong is refused, naming what is
 * missing, and the destination keeps what it held. */
static void refusals(oclconv_context *ctx, uint64_t *rng)
{
    oclconv_image whole = image_random(rng, 30, 20, 1, OCLCONV_U8, 0);
    oclconv_image dst = image_random(rng, 6, 5, 1, OCLCONV_U8, 0);
    unsigned char before[30];
    memcpy(before, dst.data, sizeof before);
    oclconv_filter *f = filter_of(1, rng); /* 7x5: reach 3 and 2 */
    oclconv_options opt = border_options(OCLCONV_BORDER_CLAMP, 0);
    /* The source holds columns 10.. only: the destination at 12 reads 9. */
    oclconv_image part = cut(&whole, 10, 0, 20, 20, 24);
    oclconv_region where = {30, 20, 10, 0, 12, 6};
    ASSERT_STATUS(ctx, oclconv_apply_region(ctx, &part, &where, &dst, f, &opt),
                  OCLCONV_E_INVALID_ARG);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "lacks pixels the destination's windows read: columns 9..20");
    /* The same at 13 is all there. */
    where.dst_x = 13;
    ASSERT_OK(ctx, oclconv_apply_region(ctx, &part, &where, &dst, f, &opt));
    memcpy(dst.data, before, sizeof before);
    /* WRAP at the left edge reads the far right, which the part lacks. */
    opt.border = OCLCONV_BORDER_WRAP;
    oclconv_image left = cut(&whole, 0, 0, 20, 20, 24);
    oclconv_region at_left = {30, 20, 0, 0, 0, 6};
    ASSERT_STATUS(ctx, oclconv_apply_region(ctx, &left, &at_left, &dst, f, &opt),
                  OCLCONV_E_INVALID_ARG);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "(with WRAP, across the edges)");
    /* Rectangles outside the whole image. */
    oclconv_region outside = {30, 20, 0, 0, 25, 0};
    ASSERT_STATUS(ctx, oclconv_apply_region(ctx, &whole, &outside, &dst, f, &opt),
                  OCLCONV_E_INVALID_ARG);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "the destination 6x5 at (25, 0) passes the whole image");
    oclconv_region src_outside = {20, 20, 0, 0, 0, 0};
    ASSERT_STATUS(ctx, oclconv_apply_region(ctx, &whole, &src_outside, &dst, f, &opt),
                  OCLCONV_E_INVALID_ARG);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "the source 30x20 at (0, 0) passes");
    ASSERT_STATUS(ctx, oclconv_apply_region(ctx, &whole, NULL, &dst, f, &opt),
                  OCLCONV_E_INVALID_ARG);
    ASSERT(memcmp(dst.data, before, sizeof before) == 0);
    /* A budget too small for one row and its halo. */
    opt.border = OCLCONV_BORDER_CLAMP;
    opt.max_device_bytes = 100;
    oclconv_image full = image_like(&whole, OCLCONV_U8, 0);
    ASSERT_STATUS(ctx, oclconv_apply(ctx, &whole, &full, f, &opt), OCLCONV_E_UNSUPPORTED);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "the call may use 100 (options.max_device_bytes)");
    opt.max_device_bytes = 0;
    setenv("OCLCONV_DEVICE_BYTES", "12Q", 1);
    ASSERT_STATUS(ctx, oclconv_apply(ctx, &whole, &full, f, &opt), OCLCONV_E_INVALID_ARG);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "OCLCONV_DEVICE_BYTES=12Q is not a positive size");
    unsetenv("OCLCONV_DEVICE_BYTES");
    image_free(&full);
    image_free(&left);
    image_free(&part);
    image_free(&dst);
    image_free(&whole);
    oclconv_filter_destroy(f);
}

/* Whole images in strips: every border, the paths AUTO picks and the
 * image path, in place too, against the reference; more strips than the
 * context has kernel events for, whose time still adds up. */
static void strips(oclconv_context *ctx, uint64_t *rng)
{
    static const oclconv_type types[] = {OCLCONV_U8, OCLCONV_F32, OCLCONV_U16};
    int cases = 0, passed = 0;
    for (int b = 0; b <= OCLCONV_BORDER_NORMALIZE; b++)
        for (int kind = 0; kind < 3; kind++, cases++) {
            int cn = 1 + (b + kind) % 4, in_place = (b + kind) % 3 == 0;
            oclconv_type type = types[(b + 2 * kind) % 3];
            oclconv_image src = image_random(rng, 61, 57, cn, type, 0);
            oclconv_filter *f = filter_of(kind, rng);
            oclconv_options opt = border_options((oclconv_border)b, 9);
            if (b == OCLCONV_BORDER_REFLECT && kind == 0)
                opt.method = OCLCONV_METHOD_IMAGE;
            /* Room for about 4 to 20 rows of halo and result. */
            size_t row = 61 * (size_t)cn * value_size(type);
            opt.max_device_bytes = row * (size_t)(30 + 4 * ((b + kind) % 4)) * 2 +
                                   (61 * (size_t)cn + 16) * 8 * 20;
            ref_result ref = ref_of_filter(&src, f, &opt);
            oclconv_image out = in_place ? src : image_like(&src, type, 0);
            char why[256] = "";
            oclconv_status s;
            long bad = ref_apply_compare(ctx, &src, &out, f, &opt, &ref, why, sizeof why, &s);
            if (s == OCLCONV_OK && bad == 0)
                passed++;
            else
                TEST_FAIL_("strips %s kind %d %s cn=%d%s, %zu device bytes: %s (%s) %ld bad %s",
                           border_name(opt.border), kind, type_name(type), cn,
                           in_place ? " in place" : "", opt.max_device_bytes,
                           oclconv_strerror(s), oclconv_errmsg(ctx), bad, why);
            ref_result_free(&ref);
            if (!in_place)
                image_free(&out);
            image_free(&src);
            oclconv_filter_destroy(f);
        }
    /* One row a strip: 57 strips of a 2-kernel path, past the 40 events. */
    oclconv_image src = image_random(rng, 61, 57, 1, OCLCONV_F32, 0);
    oclconv_image out = image_like(&src, OCLCONV_F32, 0);
    oclconv_filter *f = filter_of(1, rng);
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.method = OCLCONV_METHOD_SEPARABLE;
    setenv("OCLCONV_DEVICE_BYTES", "9K", 1);
    ASSERT_OK(ctx, oclconv_apply(ctx, &src, &out, f, &opt));
    unsetenv("OCLCONV_DEVICE_BYTES");
    ASSERT(oclconv_last_kernel_seconds(ctx) > 0);
    ref_result ref = ref_of_filter(&src, f, &opt);
    ASSERT_EQ(ref_compare(&out, &ref, NULL, 0), 0);
    ref_result_free(&ref);
    image_free(&src);
    image_free(&out);
    oclconv_filter_destroy(f);
    printf("strips: %d of %d cases pass\n", passed, cases);
}

int main(void)
{
    unoptimised_kernels();
    oclconv_context *ctx = test_context();
    uint64_t rng = 2026;
    printf("device: %s\n", oclconv_device_name(ctx));
    refusals(ctx, &rng);
    regions(ctx, &rng);
    far_reach(ctx, &rng);
    regions_cl(ctx, &rng);
    strips(ctx, &rng);
    /* Again in bands through pinned staging buffers, as from pageable
     * memory on a GPU (src/pipeline.c): runs of rows and columns gathered
     * into them, results copied out of them. */
    setenv("OCLCONV_STAGE", "1", 1);
    setenv("OCLCONV_BANDS", "3", 1);
    printf("staged, in 3 bands:\n");
    regions(ctx, &rng);
    strips(ctx, &rng);
    unsetenv("OCLCONV_BANDS");
    unsetenv("OCLCONV_STAGE");
    oclconv_destroy(ctx);
    return test_exit();
}
