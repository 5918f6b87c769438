/*
 * Device faults: no OpenCL platform at all, an image larger than the device
 * can allocate.  Each is a clear status with detail, and the context stays
 * usable where there is one.
 */
#include "test.h"
#include "util.h"

#include <sys/wait.h>
#include <unistd.h>

/* Run in a child whose ICD loader sees an empty vendors folder.  A loader
 * that ignores OCL_ICD_VENDORS (ocl-icd, Debian's, honours it) cannot stage
 * this case: the child says so with the skip status. */
static int no_platform_child(void)
{
    cl_uint platforms = 0;
    if (clGetPlatformIDs(0, NULL, &platforms) == CL_SUCCESS && platforms > 0)
        return TEST_SKIP;
    oclconv_context *ctx = (oclconv_context *)&ctx;
    ASSERT_STATUS(NULL, oclconv_create(NULL, &ctx), OCLCONV_E_NO_DEVICE);
    ASSERT(ctx == NULL);
    ASSERT_CONTAINS(oclconv_errmsg(NULL), "no OpenCL platform");
    char listing[256];
    ASSERT_STATUS(NULL, oclconv_list_devices(listing, sizeof listing), OCLCONV_E_NO_DEVICE);
    ASSERT_STATUS(NULL, oclconv_create("cpu", &ctx), OCLCONV_E_NO_DEVICE);
    return test_exit();
}

static void no_platform(const char *self)
{
    char dir[512];
    ASSERT(test_scratch_dir("empty-vendors", dir, sizeof dir) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("OCL_ICD_VENDORS", dir, 1);
        unsetenv("OCL_ICD_FILENAMES"); /* extra drivers a container may name */
        setenv("OCLCONV_FAULTS_CHILD", "no-platform", 1);
        execl("/proc/self/exe", self, (char *)NULL);
        _exit(TEST_HARD_ERROR);
    }
    int status = 0;
    ASSERT(pid > 0 && waitpid(pid, &status, 0) == pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == TEST_SKIP)
        printf("no-platform case not staged: this ICD loader ignores OCL_ICD_VENDORS\n");
    else
        ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Sizes the device cannot hold are refused before any OpenCL work; the
 * caller's memory is never read (it is far smaller than claimed). */
static void too_large(void)
{
    oclconv_context *ctx = test_context();
    float pixel[4] = {1, 2, 3, 4}, out[4] = {9, 9, 9, 9};
    oclconv_image src = {pixel, 65535, 65535, 4, OCLCONV_F32, 0};
    oclconv_image dst = {out, 65535, 65535, 4, OCLCONV_F32, 0};
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_box(1, 1, &f));
    const oclconv_method methods[] = {OCLCONV_METHOD_AUTO, OCLCONV_METHOD_BUFFER,
                                      OCLCONV_METHOD_TILED, OCLCONV_METHOD_SEPARABLE,
                                      OCLCONV_METHOD_BOX, OCLCONV_METHOD_IMAGE};
    for (size_t m = 0; m < sizeof methods / sizeof *methods; m++) {
        oclconv_options opt;
        oclconv_options_init(&opt);
        opt.method = methods[m];
        oclconv_status s = oclconv_apply(ctx, &src, &dst, f, &opt);
        ASSERT(s == OCLCONV_E_UNSUPPORTED || s == OCLCONV_E_NOMEM);
        ASSERT(strlen(oclconv_errmsg(ctx)) > 0);
        ASSERT(out[0] == 9 && out[3] == 9);
    }
    /* The context still works. */
    uint64_t rng = 99;
    oclconv_image small = image_random(&rng, 6, 5, 4, OCLCONV_F32, 0);
    oclconv_image result = image_like(&small, OCLCONV_F32, 0);
    ASSERT_OK(ctx, oclconv_apply(ctx, &small, &result, f, NULL));
    ref_result ref;
    ASSERT(ref_convolve(&small, 3, 3, oclconv_filter_weights(f), NULL, &ref) == 0);
    ASSERT_EQ(ref_compare(&result, &ref, NULL, 0), 0);
    ref_result_free(&ref);
    image_free(&small);
    image_free(&result);
    oclconv_filter_destroy(f);
    oclconv_destroy(ctx);
}

int main(int argc, char **argv)
{
    (void)argc;
    const char *child = getenv("OCLCONV_FAULTS_CHILD");
    if (child && strcmp(child, "no-platform") == 0)
        return no_platform_child();
    no_platform(argv[0]);
    too_large();
    return test_exit();
}
