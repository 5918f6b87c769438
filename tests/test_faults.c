/*
 * Device faults: no OpenCL platform at all, an image in place that no host
 * copy can be had of, a process memory limit too low for the driver or for the
 * call's device memory.  Each is a clear status with detail, and the context stays
 * usable where there is one.
 */
#include "test.h"
#include "util.h"

#include <sys/resource.h>
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

/* An image past the device runs in strips (tests/test_regions.c); in
 * place, strips need a host copy of the source, and one of a petabyte
 * cannot be had: refused before any OpenCL work, the caller's memory
 * never read (it is far smaller than claimed). */
static int too_large_child(void)
{
    oclconv_context *ctx = test_context();
    float out[4] = {9, 9, 9, 9};
    oclconv_image src = {out, 65535, 1 << 30, 4, OCLCONV_F32, 0};
    oclconv_image dst = src;
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
    return test_exit();
}

/* The process's address space in use, in bytes (/proc/self/statm). */
static size_t address_space(void)
{
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%lu", &pages) != 1)
        pages = 0;
    if (f)
        fclose(f);
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* Under an address-space limit (ulimit -v) that leaves too little for the
 * call's device memory: a clear OCLCONV_E_NOMEM that names the limit, on
 * the paths that allocate (strided images go through buffers of the
 * runtime's; the image path makes images), never an abort inside the
 * driver.  The programs are built before the limit (a compiler needs far
 * more). */
static int memory_limit_child(void)
{
    oclconv_context *ctx = test_context();
    enum { W = 8192, H = 8192, PAD = 64 };
    oclconv_image src = {calloc((size_t)(W + PAD) * H, 1), W, H, 1, OCLCONV_U8, W + PAD};
    oclconv_image dst = {calloc((size_t)(W + PAD) * H, 1), W, H, 1, OCLCONV_U8, W + PAD};
    unsigned char small_in[16 * 8 * 2] = {0}, small_out[16 * 8 * 2];
    oclconv_image s_in = {small_in, 16, 8, 1, OCLCONV_U8, 32};
    oclconv_image s_out = {small_out, 16, 8, 1, OCLCONV_U8, 32};
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_box(1, 1, &f));
    const oclconv_method methods[] = {OCLCONV_METHOD_BUFFER, OCLCONV_METHOD_IMAGE,
                                      OCLCONV_METHOD_SEPARABLE};
    oclconv_options opt[3];
    for (int m = 0; m < 3; m++) {
        oclconv_options_init(&opt[m]);
        opt[m].method = methods[m];
        ASSERT_OK(ctx, oclconv_apply(ctx, &s_in, &s_out, f, &opt[m]));
    }
    if (!src.data || !dst.data)
        return TEST_HARD_ERROR;
    /* Room for 96 MiB more: the call wants two buffers of 64 MiB. */
    struct rlimit r = {address_space() + (96u << 20), RLIM_INFINITY};
    r.rlim_max = r.rlim_cur;
    ASSERT(setrlimit(RLIMIT_AS, &r) == 0);
    for (int m = 0; m < 3; m++) {
        oclconv_status s = oclconv_apply(ctx, &src, &dst, f, &opt[m]);
        if (s == OCLCONV_OK)
            continue; /* the device found the room after all */
        ASSERT_STATUS(ctx, s, OCLCONV_E_NOMEM);
        ASSERT_CONTAINS(oclconv_errmsg(ctx), "ulimit -v");
        printf("%s: %s\n", oclconv_method_name(methods[m]), oclconv_errmsg(ctx));
    }
    /* Small calls still work under the limit where the device works in
     * host memory; a discrete GPU's runtime may want address space for
     * any launch (NVIDIA's does), and then says so as clearly. */
    cl_device_type type = 0;
    clGetDeviceInfo(oclconv_cl_device(ctx), CL_DEVICE_TYPE, sizeof type, &type, NULL);
    oclconv_status small = oclconv_apply(ctx, &s_in, &s_out, f, &opt[0]);
    if (type & CL_DEVICE_TYPE_CPU) {
        ASSERT_OK(ctx, small);
    } else if (small != OCLCONV_OK) {
        ASSERT_STATUS(ctx, small, OCLCONV_E_NOMEM);
        ASSERT_CONTAINS(oclconv_errmsg(ctx), "ulimit -v");
    }
    oclconv_filter_destroy(f);
    free(src.data);
    free(dst.data);
    oclconv_destroy(ctx);
    return test_exit();
}

/* Runs this program again as the child `name` (a fresh process: a forked
 * one would lack the runtime's threads) and returns its wait status. */
static int run_child(const char *self, const char *name)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("OCLCONV_FAULTS_CHILD", name, 1);
        /* AddressSanitizer's allocator dies where malloc() would return
         * NULL; under a memory limit, let it return NULL as libc's does. */
        const char *asan = getenv("ASAN_OPTIONS");
        char options[1024];
        snprintf(options, sizeof options, "%s%sallocator_may_return_null=1", asan ? asan : "",
                 asan && *asan ? ":" : "");
        setenv("ASAN_OPTIONS", options, 1);
        execl("/proc/self/exe", self, (char *)NULL);
        _exit(TEST_HARD_ERROR);
    }
    int status = 0;
    ASSERT(pid > 0 && waitpid(pid, &status, 0) == pid);
    return status;
}

static void memory_limit(const char *self)
{
    int status = run_child(self, "memory-limit");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        TEST_FAIL_("under a memory limit the child %s %d", WIFSIGNALED(status) ? "died of signal"
                                                                              : "exited",
                   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

/* A limit too low for the driver to load: the message says so, not only
 * that no platform was found. */
static int low_limit_child(void)
{
    /* 32 MiB more than the process maps: a driver and its compiler need
     * hundreds.  A sanitizer's reserved shadow memory leaves no such
     * limit to stage. */
    struct rlimit r = {address_space() + (32u << 20), 0};
    r.rlim_max = r.rlim_cur;
#if defined(__SANITIZE_ADDRESS__)
    return TEST_SKIP;
#endif
    ASSERT(setrlimit(RLIMIT_AS, &r) == 0);
    oclconv_context *ctx = (oclconv_context *)&ctx;
    oclconv_status s = oclconv_create(NULL, &ctx);
    ASSERT_STATUS(NULL, s, OCLCONV_E_NO_DEVICE);
    ASSERT(ctx == NULL);
    ASSERT_CONTAINS(oclconv_errmsg(NULL), "none could be loaded");
    ASSERT_CONTAINS(oclconv_errmsg(NULL), "ulimit -v");
    return test_exit();
}

/* In a child: under AddressSanitizer a petabyte's malloc() must return
 * NULL, as libc's does, not end the process (run_child()). */
static void too_large(const char *self)
{
    int status = run_child(self, "too-large");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        TEST_FAIL_("the too-large child %s %d", WIFSIGNALED(status) ? "died of signal" : "exited",
                   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

static void low_limit(const char *self)
{
    int status = run_child(self, "low-limit");
    if (WIFEXITED(status) && WEXITSTATUS(status) == TEST_SKIP)
        printf("low-limit case not staged under a sanitizer\n");
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        TEST_FAIL_("under a low memory limit the child %s %d",
                   WIFSIGNALED(status) ? "died of signal" : "exited",
                   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

int main(int argc, char **argv)
{
    (void)argc;
    const char *child = getenv("OCLCONV_FAULTS_CHILD");
    if (child && strcmp(child, "no-platform") == 0)
        return no_platform_child();
    if (child && strcmp(child, "low-limit") == 0)
        return low_limit_child();
    if (child && strcmp(child, "memory-limit") == 0)
        return memory_limit_child();
    if (child && strcmp(child, "too-large") == 0)
        return too_large_child();
    no_platform(argv[0]);
    too_large(argv[0]);
    low_limit(argv[0]);
    memory_limit(argv[0]);
    return test_exit();
}
