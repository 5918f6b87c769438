/*
 * The edges a hostile caller finds: filters at the ends of their
 * parameters, sums that pass a float's range or cancel, the application's
 * own OpenCL objects that do not belong together, overlapping sub-buffers,
 * failed events in a wait list, kernel sources that are not files, what
 * the runtime writes on standard error, a process memory limit.  Each is a
 * right answer or a clear refusal that names the real reason.
 */
#include "test.h"
#include "util.h"

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Whether a status and message are a refusal for the stated reason, or
 * success. */
static void refused_for(oclconv_context *ctx, oclconv_status s, oclconv_status want,
                        const char *reason, const char *what)
{
    if (s != want)
        TEST_FAIL_("%s: %s (%s), wanted %s", what, oclconv_strerror(s), oclconv_errmsg(ctx),
                   oclconv_strerror(want));
    else if (!strstr(oclconv_errmsg(ctx), reason))
        TEST_FAIL_("%s: \"%s\" does not say \"%s\"", what, oclconv_errmsg(ctx), reason);
}

/* ====== Filters at the ends of their parameters ======================= */

/* A tiny sigma is an identity filter; one whose radius ceil(3 sigma) passes
 * the largest is refused for that, not for a radius the caller never
 * gave; with a radius given, any finite sigma works. */
static void gaussian_ends(void)
{
    oclconv_filter *f = NULL;
    const double tiny[] = {1e-200, 1e-162, 5e-324};
    for (size_t t = 0; t < sizeof tiny / sizeof *tiny; t++) {
        ASSERT_OK(NULL, oclconv_filter_gaussian(tiny[t], 0, 0, 0, &f));
        int w = 0, h = 0;
        oclconv_filter_size(f, &w, &h);
        ASSERT(w == 3 && h == 3);
        for (int k = 0; f && k < 9; k++)
            ASSERT(oclconv_filter_weights(f)[k] == (k == 4 ? 1.0 : 0.0));
        oclconv_filter_destroy(f);
    }
    const double huge[] = {683, 1365, 1e300};
    for (size_t t = 0; t < sizeof huge / sizeof *huge; t++) {
        f = (oclconv_filter *)&f;
        refused_for(NULL, oclconv_filter_gaussian(huge[t], 0, 0, 0, &f), OCLCONV_E_INVALID_ARG,
                    "ceil(3 sigma)", "gaussian of a huge sigma");
        ASSERT(f == NULL);
        ASSERT(!strstr(oclconv_errmsg(NULL), "radius 4095"));
    }
    f = (oclconv_filter *)&f;
    refused_for(NULL, oclconv_filter_gaussian(1, 2000, 3, 0, &f), OCLCONV_E_INVALID_ARG,
                "sigma_y", "gaussian of a huge sigma_y");
    ASSERT_OK(NULL, oclconv_filter_gaussian(682, 1, 0, 0, &f));
    oclconv_filter_destroy(f);
    ASSERT_OK(NULL, oclconv_filter_gaussian(1e300, 0, 5, 5, &f));
    for (int k = 0; f && k < 121; k++)
        ASSERT(fabs(oclconv_filter_weights(f)[k] - 1.0 / 121) < 1e-7);
    oclconv_filter_destroy(f);
}

/* ====== The application's own OpenCL objects ========================== */

/* A queue of another context, or a device the context does not hold, is
 * refused at creation, not at the first call. */
static void foreign_cl_objects(void)
{
    cl_platform_id platform;
    cl_device_id ids[2];
    cl_uint nd = 0;
    ASSERT(clGetPlatformIDs(1, &platform, NULL) == CL_SUCCESS);
    ASSERT(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 2, ids, &nd) == CL_SUCCESS);
    ASSERT(nd == 2); /* main() asks PoCL for two devices */
    if (nd < 2)
        return;
    cl_int err;
    cl_context a = clCreateContext(NULL, 1, &ids[0], NULL, NULL, &err);
    cl_context b = clCreateContext(NULL, 1, &ids[0], NULL, NULL, &err);
    cl_context both = clCreateContext(NULL, 2, ids, NULL, NULL, &err);
    cl_command_queue qb = clCreateCommandQueue(b, ids[0], 0, &err);
    cl_command_queue q1 = clCreateCommandQueue(both, ids[1], 0, &err);
    oclconv_context *ctx = (oclconv_context *)&ctx;
    refused_for(NULL, oclconv_create_from_cl(a, ids[0], qb, &ctx), OCLCONV_E_INVALID_ARG,
                "another context", "a queue of another context");
    ASSERT(ctx == NULL);
    refused_for(NULL, oclconv_create_from_cl(a, ids[1], NULL, &ctx), OCLCONV_E_INVALID_ARG,
                "not one of the context's", "a device not in the context");
    refused_for(NULL, oclconv_create_from_cl(both, ids[0], q1, &ctx), OCLCONV_E_INVALID_ARG,
                "another device", "a queue of another device");
    ASSERT_OK(NULL, oclconv_create_from_cl(both, ids[1], q1, &ctx));
    oclconv_destroy(ctx);
    clReleaseCommandQueue(qb);
    clReleaseCommandQueue(q1);
    clReleaseContext(a);
    clReleaseContext(b);
    clReleaseContext(both);
}

/* ====== Sums that cancel or pass a float's range ======================= */

/* NORMALIZE's weight sum is the exact one: ±3e38 around a 1 sum to 1, so
 * the refusal, if any, is not "sum to 0". */
static void normalize_exact_sum(oclconv_context *ctx)
{
    const float w[3] = {3e38f, 1, -3e38f};
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_create(3, 1, w, &f));
    uint64_t rng = 3;
    oclconv_image src = image_random(&rng, 7, 5, 1, OCLCONV_U8, 0);
    oclconv_image dst = image_like(&src, OCLCONV_F32, 0);
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.border = OCLCONV_BORDER_NORMALIZE;
    oclconv_status s = oclconv_apply(ctx, &src, &dst, f, &opt);
    ASSERT(s != OCLCONV_E_INVALID_ARG);
    ASSERT(!strstr(oclconv_errmsg(ctx), "sum to 0"));
    if (s == OCLCONV_OK) {
        ref_result ref;
        ASSERT(ref_convolve(&src, 3, 1, oclconv_filter_weights(f), &opt, &ref) == 0);
        char why[200] = "";
        if (ref_compare(&dst, &ref, why, sizeof why))
            TEST_FAIL_("NORMALIZE of weights summing to 1 exactly by %s: %s",
                       oclconv_method_name(oclconv_last_method(ctx)), why);
        ref_result_free(&ref);
    }
    oclconv_filter_destroy(f);
    image_free(&src);
    image_free(&dst);
}

int main(void)
{
    /* Two devices, for a device that is not in a context. */
    setenv("POCL_DEVICES", "pthread pthread", 1);
    gaussian_ends();
    foreign_cl_objects();
    oclconv_context *ctx = test_context();
    normalize_exact_sum(ctx);
    oclconv_destroy(ctx);
    return test_exit();
}
