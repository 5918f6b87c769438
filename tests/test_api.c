/*
 * The API's edges: status strings, defaults, filter constructors and their
 * errors, argument checks that leave the destination untouched, device
 * specs, the program cache, build failures, application-owned CL objects.
 */
#include "test.h"
#include "util.h"

#include <math.h>

static void statuses(void)
{
#define CHECK_TEXT(name, value, text) ASSERT(strcmp(oclconv_strerror(OCLCONV_##name), text) == 0);
    OCLCONV_STATUS_MAP(CHECK_TEXT)
#undef CHECK_TEXT
    ASSERT(strcmp(oclconv_strerror((oclconv_status)12345), "unknown status") == 0);
    ASSERT_EQ(OCLCONV_OK, 0);
    ASSERT(OCLCONV_E_INVALID_ARG < 0 && OCLCONV_E_OPENCL < 0);
    ASSERT_EQ(oclconv_version_number(), OCLCONV_VERSION_NUMBER);
    ASSERT(strcmp(oclconv_method_name(OCLCONV_METHOD_SEPARABLE), "separable") == 0);
    ASSERT(oclconv_method_name((oclconv_method)99) == NULL);
    oclconv_destroy(NULL);
    oclconv_filter_destroy(NULL);
    ASSERT(strcmp(oclconv_device_name(NULL), "") == 0);
}

static void options_defaults(void)
{
    oclconv_options o;
    memset(&o, 0x5a, sizeof o);
    oclconv_options_init(&o);
    ASSERT_EQ(o.size, sizeof o);
    ASSERT_EQ(o.border, OCLCONV_BORDER_CLAMP);
    ASSERT_EQ(o.method, OCLCONV_METHOD_AUTO);
    ASSERT(o.scale == 1 && o.delta == 0 && o.border_value == 0);
}

static void filters(void)
{
    oclconv_filter *f = (oclconv_filter *)&f;
    float w[9] = {0};
    ASSERT_STATUS(NULL, oclconv_filter_create(2, 3, w, &f), OCLCONV_E_INVALID_ARG);
    ASSERT(f == NULL);
    ASSERT_CONTAINS(oclconv_errmsg(NULL), "odd");
    ASSERT_STATUS(NULL, oclconv_filter_create(0, 1, w, &f), OCLCONV_E_INVALID_ARG);
    ASSERT_STATUS(NULL, oclconv_filter_create(-3, 3, w, &f), OCLCONV_E_INVALID_ARG);
    ASSERT_STATUS(NULL, oclconv_filter_create(3, 3, NULL, &f), OCLCONV_E_INVALID_ARG);
    ASSERT_STATUS(NULL, oclconv_filter_create(3, 3, w, NULL), OCLCONV_E_INVALID_ARG);
    ASSERT_STATUS(NULL, oclconv_filter_create(4097, 1, w, &f), OCLCONV_E_INVALID_ARG);
    ASSERT_STATUS(NULL, oclconv_filter_create(4095, 4095, w, &f), OCLCONV_E_INVALID_ARG);
    ASSERT_CONTAINS(oclconv_errmsg(NULL), "too large");
    w[4] = NAN;
    ASSERT_STATUS(NULL, oclconv_filter_create(3, 3, w, &f), OCLCONV_E_INVALID_ARG);
    ASSERT_CONTAINS(oclconv_errmsg(NULL), "finite");
    w[4] = INFINITY;
    ASSERT_STATUS(NULL, oclconv_filter_separable(3, w + 3, 3, w, &f), OCLCONV_E_INVALID_ARG);
    ASSERT_STATUS(NULL, oclconv_filter_box(-1, 1, &f), OCLCONV_E_INVALID_ARG);
    ASSERT_STATUS(NULL, oclconv_filter_gaussian(0, 0, 0, 0, &f), OCLCONV_E_INVALID_ARG);
    ASSERT_STATUS(NULL, oclconv_filter_gaussian(NAN, 0, 0, 0, &f), OCLCONV_E_INVALID_ARG);
    ASSERT_STATUS(NULL, oclconv_filter_sharpen(INFINITY, &f), OCLCONV_E_INVALID_ARG);

    /* Box: (2rx+1)(2ry+1) equal taps summing to 1. */
    ASSERT_OK(NULL, oclconv_filter_box(2, 1, &f));
    int fw, fh;
    oclconv_filter_size(f, &fw, &fh);
    ASSERT(fw == 5 && fh == 3);
    double sum = 0;
    for (int k = 0; k < 15; k++) {
        sum += oclconv_filter_weights(f)[k];
        ASSERT(oclconv_filter_weights(f)[k] == oclconv_filter_weights(f)[0]);
    }
    ASSERT(fabs(sum - 1) < 1e-6);
    oclconv_filter_destroy(f);

    /* Gaussian: radius 0 means ceil(3 sigma); symmetric, peak in the middle, sums to 1. */
    ASSERT_OK(NULL, oclconv_filter_gaussian(1.5, 0, 0, 0, &f));
    oclconv_filter_size(f, &fw, &fh);
    ASSERT(fw == 11 && fh == 11);
    const double *g = oclconv_filter_weights(f);
    sum = 0;
    for (int k = 0; k < fw * fh; k++)
        sum += g[k];
    ASSERT(fabs(sum - 1) < 1e-6);
    ASSERT(g[5 * 11 + 5] > g[5 * 11 + 4] && g[5 * 11 + 4] == g[5 * 11 + 6] && g[0] == g[120]);
    oclconv_filter_destroy(f);
    ASSERT_OK(NULL, oclconv_filter_gaussian(1.0, 2.0, 4, 0, &f));
    oclconv_filter_size(f, &fw, &fh);
    ASSERT(fw == 9 && fh == 13);
    oclconv_filter_destroy(f);

    /* The documented 3x3 kernels. */
    static const double sobel_x[9] = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
    static const double sobel_y[9] = {-1, -2, -1, 0, 0, 0, 1, 2, 1};
    static const double laplacian[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
    static const double emboss[9] = {-2, -1, 0, -1, 1, 1, 0, 1, 2};
    static const double sharpen2[9] = {0, -2, 0, -2, 9, -2, 0, -2, 0};
    struct {
        oclconv_status (*make)(oclconv_filter **);
        const double *w;
    } fixed[] = {{oclconv_filter_sobel_x, sobel_x},
                 {oclconv_filter_sobel_y, sobel_y},
                 {oclconv_filter_laplacian, laplacian},
                 {oclconv_filter_emboss, emboss}};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
        ASSERT_OK(NULL, fixed[i].make(&f));
        ASSERT(memcmp(oclconv_filter_weights(f), fixed[i].w, 9 * sizeof(double)) == 0);
        oclconv_filter_destroy(f);
    }
    ASSERT_OK(NULL, oclconv_filter_sharpen(2, &f));
    ASSERT(memcmp(oclconv_filter_weights(f), sharpen2, sizeof sharpen2) == 0);
    oclconv_filter_destroy(f);
}

/* Every bad argument is refused before any work, with a message, and the
 * destination keeps every byte. */
static void bad_arguments(oclconv_context *ctx)
{
    uint64_t rng = 42;
    oclconv_image src = image_random(&rng, 9, 7, 3, OCLCONV_U8, 0);
    oclconv_image dst = image_like(&src, OCLCONV_U8, 0);
    unsigned char before[9 * 7 * 3];
    memcpy(before, dst.data, sizeof before);
    oclconv_filter *f, *zero_sum;
    ASSERT_OK(NULL, oclconv_filter_box(1, 1, &f));
    ASSERT_OK(NULL, oclconv_filter_laplacian(&zero_sum));
    oclconv_options opt;
    oclconv_image bad;

#define REFUSED(call, needle)                                                    \
    do {                                                                         \
        ASSERT_STATUS(ctx, call, OCLCONV_E_INVALID_ARG);                         \
        ASSERT_CONTAINS(oclconv_errmsg(ctx), needle);                            \
        ASSERT(memcmp(before, dst.data, sizeof before) == 0);                    \
        oclconv_options_init(&opt);                                              \
        bad = src;                                                               \
    } while (0)

    oclconv_options_init(&opt);
    bad = src;
    ASSERT_STATUS(NULL, oclconv_apply(NULL, &src, &dst, f, NULL), OCLCONV_E_INVALID_ARG);
    REFUSED(oclconv_apply(ctx, NULL, &dst, f, NULL), "source");
    REFUSED(oclconv_apply(ctx, &src, NULL, f, NULL), "destination");
    REFUSED(oclconv_apply(ctx, &src, &dst, NULL, NULL), "filter");
    bad.data = NULL;
    REFUSED(oclconv_apply(ctx, &bad, &dst, f, NULL), "no data");
    bad.width = 0;
    REFUSED(oclconv_apply(ctx, &bad, &dst, f, NULL), "not positive");
    bad.height = -5;
    REFUSED(oclconv_apply(ctx, &bad, &dst, f, NULL), "not positive");
    bad.channels = 5;
    REFUSED(oclconv_apply(ctx, &bad, &dst, f, NULL), "channels");
    bad.channels = 0;
    REFUSED(oclconv_apply(ctx, &bad, &dst, f, NULL), "channels");
    bad.type = (oclconv_type)7;
    REFUSED(oclconv_apply(ctx, &bad, &dst, f, NULL), "type");
    bad.stride = 26;
    REFUSED(oclconv_apply(ctx, &bad, &dst, f, NULL), "stride");
    bad.width = 1 << 30;
    bad.height = 1 << 30;
    bad.channels = 4;
    bad.type = OCLCONV_F32;
    REFUSED(oclconv_apply(ctx, &bad, &dst, f, NULL), "overflow");
    /* Rows or columns longer than the kernels' int indices reach: refused
     * before the data (only this small image's) are touched. */
    bad.width = (1 << 28) + 1;
    bad.height = 1;
    bad.channels = 4;
    ASSERT_STATUS(ctx, oclconv_apply(ctx, &bad, &dst, f, NULL), OCLCONV_E_UNSUPPORTED);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "268435457x1x4 is beyond what the kernels index");
    ASSERT(memcmp(before, dst.data, sizeof before) == 0);
    bad.width = 1;
    bad.height = (1 << 30) + 1;
    bad.channels = 1;
    ASSERT_STATUS(ctx, oclconv_apply(ctx, &bad, &dst, f, NULL), OCLCONV_E_UNSUPPORTED);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "1x1073741825x1 is beyond what the kernels index");
    ASSERT(memcmp(before, dst.data, sizeof before) == 0);
    bad = src;
    bad.width = 8;
    REFUSED(oclconv_apply(ctx, &bad, &dst, f, NULL), "differ");
    bad.channels = 4;
    REFUSED(oclconv_apply(ctx, &bad, &dst, f, NULL), "differ");
    opt.border = (oclconv_border)17;
    REFUSED(oclconv_apply(ctx, &src, &dst, f, &opt), "border");
    opt.method = (oclconv_method)-1;
    REFUSED(oclconv_apply(ctx, &src, &dst, f, &opt), "method");
    opt.scale = NAN;
    REFUSED(oclconv_apply(ctx, &src, &dst, f, &opt), "finite");
    opt.delta = INFINITY;
    REFUSED(oclconv_apply(ctx, &src, &dst, f, &opt), "finite");
    opt.size = 0;
    REFUSED(oclconv_apply(ctx, &src, &dst, f, &opt), "oclconv_options_init");
    opt.border = OCLCONV_BORDER_NORMALIZE;
    REFUSED(oclconv_apply(ctx, &src, &dst, zero_sum, &opt), "sum");
    setenv("OCLCONV_METHOD", "bogus", 1);
    REFUSED(oclconv_apply(ctx, &src, &dst, f, NULL), "OCLCONV_METHOD");
    unsetenv("OCLCONV_METHOD");

    /* A u16 image with a stride that splits a value. */
    oclconv_image s16 = image_random(&rng, 4, 4, 1, OCLCONV_U16, 0);
    s16.stride = 9;
    oclconv_image d16 = image_like(&s16, OCLCONV_U16, 0);
    s16.stride = 9;
    ASSERT_STATUS(ctx, oclconv_apply(ctx, &s16, &d16, f, NULL), OCLCONV_E_INVALID_ARG);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "multiples");
    image_free(&s16);
    image_free(&d16);

    /* A later success clears the message. */
    ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, f, NULL));
    ASSERT(strcmp(oclconv_errmsg(ctx), "") == 0);

    /* A program built against a newer header (larger options) still works. */
    struct {
        oclconv_options o;
        int future_field;
    } newer;
    oclconv_options_init(&newer.o);
    newer.o.size = sizeof newer;
    newer.future_field = 7;
    ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, f, &newer.o));

    oclconv_filter_destroy(f);
    oclconv_filter_destroy(zero_sum);
    image_free(&src);
    image_free(&dst);
}

static void device_specs(void)
{
    oclconv_context *ctx = (oclconv_context *)&ctx;
    ASSERT_STATUS(NULL, oclconv_create("no-such-device-xyz", &ctx), OCLCONV_E_NO_DEVICE);
    ASSERT(ctx == NULL);
    ASSERT_CONTAINS(oclconv_errmsg(NULL), "no-such-device-xyz");
    ASSERT_CONTAINS(oclconv_errmsg(NULL), "0: "); /* the listing */
    ASSERT_STATUS(NULL, oclconv_create("999", &ctx), OCLCONV_E_NO_DEVICE);
    ASSERT_STATUS(NULL, oclconv_create(":BOGUS:", &ctx), OCLCONV_E_NO_DEVICE);
    ASSERT_CONTAINS(oclconv_errmsg(NULL), "type must be");
    ASSERT_STATUS(NULL, oclconv_create(NULL, NULL), OCLCONV_E_INVALID_ARG);

    char listing[4096];
    ASSERT_OK(NULL, oclconv_list_devices(listing, sizeof listing));
    ASSERT_CONTAINS(listing, "0: ");
    /* Every device listed can be had by its index, by platform:type:index and
     * by name, and each names the same device. */
    for (int i = 0;; i++) {
        char spec[64], key[16];
        snprintf(key, sizeof key, "%d: ", i);
        const char *line = strstr(listing, key);
        if (!line)
            break;
        line += strlen(key);
        char name[256];
        size_t n = strcspn(line, "[");
        snprintf(name, sizeof name, "%.*s", (int)(n > 1 ? n - 1 : n), line);
        snprintf(spec, sizeof spec, "%d", i);
        ASSERT_OK(NULL, oclconv_create(spec, &ctx));
        if (ctx)
            ASSERT(strcmp(oclconv_device_name(ctx), name) == 0);
        oclconv_destroy(ctx);
        ASSERT_OK(NULL, oclconv_create(name, &ctx));
        oclconv_destroy(ctx);
        const char *type = strstr(line, "[CPU]") == line + n ? "CPU" : strstr(line, "[GPU]") == line + n ? "GPU" : "";
        snprintf(spec, sizeof spec, ":%s:", type);
        ASSERT_OK(NULL, oclconv_create(spec, &ctx));
        oclconv_destroy(ctx);
    }
    /* "cpu", "pocl" and the OpenCV form name PoCL's CPU device where it exists. */
    if (strstr(listing, "[CPU]")) {
        ASSERT_OK(NULL, oclconv_create("cpu", &ctx));
        oclconv_destroy(ctx);
        ASSERT_OK(NULL, oclconv_create(":CPU:0", &ctx));
        oclconv_destroy(ctx);
    }
    if (strstr(listing, "Portable Computing Language")) {
        ASSERT_OK(NULL, oclconv_create("portable computing:cpu:", &ctx));
        oclconv_destroy(ctx);
        ASSERT_OK(NULL, oclconv_create("pocl", &ctx)); /* the platform's vendor */
        oclconv_destroy(ctx);
        ASSERT_OK(NULL, oclconv_create("POCL:CPU:0", &ctx));
        oclconv_destroy(ctx);
    }
}

static void program_cache(void)
{
    oclconv_context *ctx = test_context();
    uint64_t rng = 7;
    oclconv_image src = image_random(&rng, 40, 30, 4, OCLCONV_U8, 0);
    oclconv_image dst = image_like(&src, OCLCONV_U8, 0);
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.method = OCLCONV_METHOD_BUFFER;
    oclconv_filter *a, *b, *c;
    ASSERT_OK(NULL, oclconv_filter_gaussian(1.0, 0, 3, 3, &a));
    ASSERT_OK(NULL, oclconv_filter_gaussian(2.5, 0, 3, 3, &b)); /* new sigma, same shape */
    ASSERT_OK(NULL, oclconv_filter_gaussian(1.0, 0, 4, 3, &c)); /* new shape */
    ASSERT_EQ(oclconv_programs_built(ctx), 0);
    ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, a, &opt));
    size_t built = oclconv_programs_built(ctx);
    ASSERT_EQ(built, 1);
    ASSERT_EQ(oclconv_last_method(ctx), OCLCONV_METHOD_BUFFER);
    ASSERT(oclconv_last_kernel_seconds(ctx) > 0);
    ASSERT(oclconv_cl_context(ctx) && oclconv_cl_device(ctx) && oclconv_cl_queue(ctx));
    ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, b, &opt));
    ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, a, &opt));
    ASSERT_EQ(oclconv_programs_built(ctx), built);
    ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, c, &opt));
    ASSERT_EQ(oclconv_programs_built(ctx), built + 1);

    /* OCLCONV_METHOD forces a path where the options leave AUTO. */
    setenv("OCLCONV_METHOD", "buffer", 1);
    ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, a, NULL));
    ASSERT_EQ(oclconv_last_method(ctx), OCLCONV_METHOD_BUFFER);
    unsetenv("OCLCONV_METHOD");
    ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, a, NULL));
    ASSERT(oclconv_last_method(ctx) != OCLCONV_METHOD_AUTO);

    oclconv_filter_destroy(a);
    oclconv_filter_destroy(b);
    oclconv_filter_destroy(c);
    image_free(&src);
    image_free(&dst);
    oclconv_destroy(ctx);
}

/* A kernel that does not compile: OCLCONV_E_BUILD with the compiler's log,
 * and the context stays usable once the sources are fixed. */
static void build_failure(void)
{
    char dir[512], path[600];
    ASSERT(test_scratch_dir("broken-cl", dir, sizeof dir) == 0);
    if (test_broken_sources(dir) != 0) {
        TEST_FAIL_("cannot write the sources into %s", dir);
        return;
    }

    oclconv_context *ctx = test_context();
    uint64_t rng = 3;
    oclconv_image src = image_random(&rng, 5, 5, 1, OCLCONV_U8, 0);
    oclconv_image dst = image_like(&src, OCLCONV_U8, 0);
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_box(1, 1, &f));
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.method = OCLCONV_METHOD_BUFFER;
    setenv("OCLCONV_KERNEL_DIR", dir, 1);
    ASSERT_STATUS(ctx, oclconv_apply(ctx, &src, &dst, f, &opt), OCLCONV_E_BUILD);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "undefined_name");
    snprintf(path, sizeof path, "%s/no-such-dir", dir);
    setenv("OCLCONV_KERNEL_DIR", path, 1);
    ASSERT_STATUS(ctx, oclconv_apply(ctx, &src, &dst, f, &opt), OCLCONV_E_BUILD);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "no-such-dir");
    unsetenv("OCLCONV_KERNEL_DIR");
    ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, f, &opt));
    oclconv_filter_destroy(f);
    image_free(&src);
    image_free(&dst);
    oclconv_destroy(ctx);
}

/* The application's own context and queue. */
static void from_cl(void)
{
    cl_device_id device;
    cl_context cl;
    oclconv_context *mine = NULL, *other = NULL;
    cl_platform_id platform;
    cl_uint np;
    ASSERT(clGetPlatformIDs(1, &platform, &np) == CL_SUCCESS);
    char name[256] = "";
    cl_uint nd = 0;
    cl_device_id ids[16];
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 16, ids, &nd);
    device = ids[0];
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL);
    cl_int err;
    cl = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    ASSERT(err == CL_SUCCESS);
    cl_command_queue q = clCreateCommandQueue(cl, device, 0, &err);
    ASSERT_OK(NULL, oclconv_create_from_cl(cl, device, q, &mine));
    ASSERT(strcmp(oclconv_device_name(mine), name) == 0);
    ASSERT_STATUS(NULL, oclconv_create_from_cl(NULL, device, q, &other), OCLCONV_E_INVALID_ARG);
    ASSERT(other == NULL);
    uint64_t rng = 5;
    oclconv_image src = image_random(&rng, 13, 9, 2, OCLCONV_F32, 0);
    oclconv_image dst = image_like(&src, OCLCONV_F32, 0);
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_emboss(&f));
    ASSERT_OK(mine, oclconv_apply(mine, &src, &dst, f, NULL));
    ref_result ref;
    ASSERT(ref_convolve(&src, 3, 3, oclconv_filter_weights(f), NULL, &ref) == 0);
    ASSERT_EQ(ref_compare(&dst, &ref, NULL, 0), 0);
    ref_result_free(&ref);
    /* The library retained what it was given: releasing ours first is fine. */
    clReleaseCommandQueue(q);
    clReleaseContext(cl);
    ASSERT_OK(mine, oclconv_apply(mine, &src, &dst, f, NULL));
    oclconv_destroy(mine);
    oclconv_filter_destroy(f);
    image_free(&src);
    image_free(&dst);
}

/* Seed 000: a 3x3 box with the NORMALIZE border averages the in-image
 * pixels: 4 at a corner, 6 along an edge, 9 inside. */
static void normalize_box(oclconv_context *ctx)
{
    uint64_t rng = 11;
    oclconv_image src = image_random(&rng, 6, 5, 1, OCLCONV_U8, 0);
    oclconv_image dst = image_like(&src, OCLCONV_F32, 0);
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_box(1, 1, &f));
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.border = OCLCONV_BORDER_NORMALIZE;
    const unsigned char *in = src.data;
    const float *out = dst.data;
    const oclconv_method methods[] = {OCLCONV_METHOD_AUTO, OCLCONV_METHOD_BUFFER,
                                      OCLCONV_METHOD_IMAGE};
    for (size_t m = 0; m < sizeof methods / sizeof *methods; m++) {
        opt.method = methods[m];
        ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, f, &opt));
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 6; x++) {
                double total = 0;
                int count = 0;
                for (int j = -1; j <= 1; j++)
                    for (int i = -1; i <= 1; i++)
                        if (x + i >= 0 && x + i < 6 && y + j >= 0 && y + j < 5) {
                            total += in[(y + j) * 6 + x + i];
                            count++;
                        }
                int edges = (x == 0 || x == 5) + (y == 0 || y == 4);
                ASSERT_EQ(count, edges == 2 ? 4 : edges == 1 ? 6 : 9);
                if (fabs(out[y * 6 + x] - total / count) > 1e-4 * total / count)
                    TEST_FAIL_("normalize %s at %d,%d: %g, want %g",
                               oclconv_method_name(methods[m]), x, y, out[y * 6 + x],
                               total / count);
            }
    }
    oclconv_filter_destroy(f);
    image_free(&src);
    image_free(&dst);
}

int main(void)
{
    unoptimised_kernels();
    statuses();
    options_defaults();
    filters();
    device_specs();
    oclconv_context *ctx = test_context();
    bad_arguments(ctx);
    normalize_box(ctx);
    oclconv_destroy(ctx);
    program_cache();
    build_failure();
    from_cl();
    return test_exit();
}
