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
#include <stdint.h>
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

/* One call on every path: each gives the exact result (judged by the
 * reference's exact sums) or refuses; none answers wrong.  AUTO must
 * answer where `auto_answers`. */
typedef struct {
    const char *name;
    oclconv_type src, dst;
    int channels, fw, fh;
    float weight;     /* every tap, unless sobel */
    int sobel;        /* Sobel x instead */
    float scale, border_value;
    oclconv_border border;
    int auto_answers;
    float fill; /* float images: every value fill times a random sign (fill < 0)
                   or fill itself; 0: the random values of image_random() */
} range_case;

static void range_on_every_path(oclconv_context *ctx, const range_case *c)
{
    oclconv_filter *f = NULL;
    if (c->sobel) {
        ASSERT_OK(NULL, oclconv_filter_sobel_x(&f));
    } else {
        float w[128];
        for (int k = 0; k < c->fw * c->fh; k++)
            w[k] = c->weight;
        ASSERT_OK(NULL, oclconv_filter_create(c->fw, c->fh, w, &f));
    }
    if (!f)
        return;
    uint64_t rng = 17;
    oclconv_image src = image_random(&rng, 37, 7, c->channels, c->src, 0);
    for (size_t k = 0; c->fill != 0 && k < image_bytes(&src) / sizeof(float); k++)
        ((float *)src.data)[k] = c->fill > 0 || rng_next(&rng) % 2 ? fabsf(c->fill) : c->fill;
    oclconv_image dst = image_like(&src, c->dst, 0);
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.scale = c->scale;
    opt.border = c->border;
    opt.border_value = c->border_value;
    ref_result ref;
    ASSERT(ref_convolve(&src, c->fw, c->fh, oclconv_filter_weights(f), &opt, &ref) == 0);
    for (int m = OCLCONV_METHOD_AUTO; m <= OCLCONV_METHOD_RUNS; m++) {
        opt.method = (oclconv_method)m;
        oclconv_status s = oclconv_apply(ctx, &src, &dst, f, &opt);
        char why[200] = "";
        if (s == OCLCONV_OK && ref_compare(&dst, &ref, why, sizeof why))
            TEST_FAIL_("%s by %s: %s", c->name, oclconv_method_name(oclconv_last_method(ctx)),
                       why);
        else if (s != OCLCONV_OK && (s != OCLCONV_E_UNSUPPORTED || (m == 0 && c->auto_answers) ||
                                     /* float images: refused only by the box path, for
                                      * filters it cannot take, and the runs path */
                                     (c->src == OCLCONV_F32 && !strstr(oclconv_errmsg(ctx), "box") &&
                                      !strstr(oclconv_errmsg(ctx), "8- and 16-bit"))))
            TEST_FAIL_("%s by %s: %s (%s)", c->name, oclconv_method_name(opt.method),
                       oclconv_strerror(s), oclconv_errmsg(ctx));
    }
    ref_result_free(&ref);
    oclconv_filter_destroy(f);
    image_free(&src);
    image_free(&dst);
}

/* Sums that pass a float's range, and border terms that swallow the
 * image's: the cases a float sum got wrong, on every path. */
static void float_range(oclconv_context *ctx)
{
    const oclconv_border C = OCLCONV_BORDER_CONSTANT, E = OCLCONV_BORDER_CLAMP;
    const range_case cases[] = {
        {"u8 weights 1e36, scale 3.9e-38", OCLCONV_U8, OCLCONV_U8, 1, 3, 3, 1e36f, 0, 3.9e-38f, 0,
         E, 1, 0},
        {"u8 to f32, weights 1e37, scale 1e-10", OCLCONV_U8, OCLCONV_F32, 1, 3, 3, 1e37f, 0,
         1e-10f, 0, E, 1, 0},
        {"5x5 box, CONSTANT 1e38, u8", OCLCONV_U8, OCLCONV_U8, 1, 5, 5, 1.0f / 25, 0, 1, 1e38f, C,
         1, 0},
        {"5x5 box, CONSTANT 1e38, to f32", OCLCONV_U8, OCLCONV_F32, 1, 5, 5, 1.0f / 25, 0, 1,
         1e38f, C, 1, 0},
        {"5x5 box, CONSTANT 5e37, u16", OCLCONV_U16, OCLCONV_U16, 2, 5, 5, 1.0f / 25, 0, 1, 5e37f,
         C, 1, 0},
        {"RGBA8 Sobel x, CONSTANT 1e38", OCLCONV_U8, OCLCONV_U8, 4, 3, 3, 0, 1, 1, 1e38f, C, 0, 0},
        {"RGBA8 Sobel x, CONSTANT -1e38", OCLCONV_U8, OCLCONV_U8, 4, 3, 3, 0, 1, 1, -1e38f, C, 0, 0},
        {"RGBA8 Sobel x to f32, CONSTANT 1e38", OCLCONV_U8, OCLCONV_F32, 4, 3, 3, 0, 1, 1, 1e38f,
         C, 1, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        range_on_every_path(ctx, &cases[k]);
    /* Float images whose own values make sums past FLT_MAX that the scale
     * brings back, in the device's kernel shapes and the other type's
     * (GPU tiles add equal taps' values first: 31 taps from chunks). */
    const range_case floats[] = {
        {"f32 3e38 under 3x3 ones, scale 1/9", OCLCONV_F32, OCLCONV_F32, 1, 3, 3, 1, 0, 1.0f / 9,
         0, E, 1, 3e38f},
        {"f32 RGBA 3e38 under 5x5 ones to u16, scale 1/25", OCLCONV_F32, OCLCONV_U16, 4, 5, 5, 1, 0,
         1.0f / 25, 0, E, 1, 3e38f},
        {"f32 +-3e38 Sobel x, scale 1/8", OCLCONV_F32, OCLCONV_F32, 2, 3, 3, 0, 1, 1.0f / 8, 0,
         OCLCONV_BORDER_REFLECT101, 1, -3e38f},
        {"f32 to u8, weights 1e36, scale 3.9e-38", OCLCONV_F32, OCLCONV_U8, 1, 3, 3, 1e36f, 0,
         3.9e-38f, 0, E, 1, 0},
        {"f32 3e38 under 31x3 ones, scale 1/93", OCLCONV_F32, OCLCONV_F32, 1, 31, 3, 1, 0,
         1.0f / 93, 0, OCLCONV_BORDER_WRAP, 1, 3e38f},
        {"f32 3e38 under 9x9 NORMALIZE ones", OCLCONV_F32, OCLCONV_F32, 1, 9, 9, 1, 0, 1.0f / 81,
         0, OCLCONV_BORDER_NORMALIZE, 1, 3e38f},
    };
    for (int shapes = 0; shapes < 2; shapes++) {
        use_shapes(ctx, shapes);
        for (size_t k = 0; k < sizeof floats / sizeof *floats; k++)
            range_on_every_path(ctx, &floats[k]);
    }
    use_shapes(ctx, 0);
}

/* ====== Device buffers and events ====================================== */

static cl_mem buffer_with(cl_context cl, size_t bytes, const void *data)
{
    cl_int err;
    cl_mem m = clCreateBuffer(cl, CL_MEM_READ_WRITE | (data ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)(uintptr_t)data, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateBuffer: %d\n", err);
        exit(TEST_HARD_ERROR);
    }
    return m;
}

static cl_mem sub_buffer(cl_mem parent, size_t origin, size_t bytes)
{
    cl_buffer_region r = {origin, bytes};
    cl_int err;
    cl_mem m = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateSubBuffer: %d\n", err);
        exit(TEST_HARD_ERROR);
    }
    return m;
}

/* Source and destination as sub-buffers of one buffer, the destination
 * `shift` rows below the source (0: the same rows; rows past the source:
 * apart), or the whole buffer and a sub-buffer of it: the result is as if
 * they did not share memory, on every buffer path. */
static void overlapping_sub_buffers(oclconv_context *ctx)
{
    enum { W = 64, H = 24 };
    cl_context cl = oclconv_cl_context(ctx);
    cl_command_queue q = oclconv_cl_queue(ctx);
    uint64_t rng = 9;
    oclconv_image whole = image_random(&rng, W, 2 * H, 1, OCLCONV_U8, 0);
    oclconv_image src = whole, got = image_like(&whole, OCLCONV_U8, 0);
    src.height = got.height = H;
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_gaussian(1.5, 0, 0, 0, &f)); /* 11x11 */
    const oclconv_method methods[] = {OCLCONV_METHOD_BUFFER, OCLCONV_METHOD_TILED,
                                      OCLCONV_METHOD_SEPARABLE};
    const int shifts[] = {8, 0, -8, H, -1};
    /* NVIDIA's OpenCL (driver 580) dies releasing a sub-buffer a kernel
     * has used, in plain OpenCL too: on devices other than CPUs the
     * sub-buffers stay until the process ends. */
    cl_device_type type = 0;
    clGetDeviceInfo(oclconv_cl_device(ctx), CL_DEVICE_TYPE, sizeof type, &type, NULL);
    int keep_sub_buffers = !(type & CL_DEVICE_TYPE_CPU);
    for (size_t m = 0; m < sizeof methods / sizeof *methods; m++)
        for (size_t k = 0; k < sizeof shifts / sizeof *shifts; k++) {
            int shift = shifts[k], from = shift < 0 && shift != -1 ? -shift : 0;
            cl_mem parent = buffer_with(cl, (size_t)W * 2 * H, whole.data);
            cl_mem a = shift == -1 ? parent : sub_buffer(parent, (size_t)W * from, (size_t)W * H);
            cl_mem b = sub_buffer(parent, (size_t)W * (shift == -1 ? 8 : from + shift),
                                  (size_t)W * H);
            if (a == parent)
                clRetainMemObject(parent);
            oclconv_image in = src;
            in.data = (unsigned char *)whole.data + (size_t)W * from;
            oclconv_cl_image s = {a, W, H, 1, OCLCONV_U8}, d = {b, W, H, 1, OCLCONV_U8};
            oclconv_options opt;
            oclconv_options_init(&opt);
            opt.method = methods[m];
            ASSERT_OK(ctx, oclconv_apply_cl(ctx, &s, &d, f, &opt, 0, NULL, NULL));
            ASSERT(clEnqueueReadBuffer(q, b, CL_TRUE, 0, (size_t)W * H, got.data, 0, NULL,
                                       NULL) == CL_SUCCESS);
            ref_result ref;
            char why[200] = "";
            ASSERT(ref_convolve(&in, 11, 11, oclconv_filter_weights(f), &opt, &ref) == 0);
            long bad = ref_compare(&got, &ref, why, sizeof why);
            if (bad)
                TEST_FAIL_("%s, destination %d rows from the source: %ld wrong, %s",
                           oclconv_method_name(methods[m]), shift, bad, why);
            ref_result_free(&ref);
            if (!keep_sub_buffers || a == parent)
                clReleaseMemObject(a);
            if (!keep_sub_buffers)
                clReleaseMemObject(b);
            clReleaseMemObject(parent);
        }
    oclconv_filter_destroy(f);
    image_free(&whole);
    image_free(&got);
}

/* A wait list holding a user event that has already failed is refused:
 * commands waiting on it would never run, nor the call's event complete. */
static void failed_wait_list(oclconv_context *ctx)
{
    cl_context cl = oclconv_cl_context(ctx);
    uint64_t rng = 4;
    oclconv_image img = image_random(&rng, 16, 8, 1, OCLCONV_F32, 0);
    cl_mem in = buffer_with(cl, 16 * 8 * 4, img.data), out = buffer_with(cl, 16 * 8 * 4, NULL);
    oclconv_cl_image s = {in, 16, 8, 1, OCLCONV_F32}, d = {out, 16, 8, 1, OCLCONV_F32};
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_box(1, 1, &f));
    cl_int err;
    cl_event failed = clCreateUserEvent(cl, &err), fine = clCreateUserEvent(cl, &err);
    ASSERT(clSetUserEventStatus(failed, -1) == CL_SUCCESS);
    ASSERT(clSetUserEventStatus(fine, CL_COMPLETE) == CL_SUCCESS);
    cl_event list[2] = {fine, failed}, done = (cl_event)&done;
    refused_for(ctx, oclconv_apply_cl(ctx, &s, &d, f, NULL, 2, list, &done),
                OCLCONV_E_INVALID_ARG, "wait_list[1] has failed", "a failed event to wait on");
    ASSERT(done == NULL);
    /* An event of another context is refused too; a good list runs. */
    cl_device_id dev = oclconv_cl_device(ctx);
    cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_event foreign = clCreateUserEvent(other, &err);
    clSetUserEventStatus(foreign, CL_COMPLETE);
    refused_for(ctx, oclconv_apply_cl(ctx, &s, &d, f, NULL, 1, &foreign, &done),
                OCLCONV_E_INVALID_ARG, "another cl_context", "an event of another context");
    ASSERT_OK(ctx, oclconv_apply_cl(ctx, &s, &d, f, NULL, 1, &fine, &done));
    ASSERT(done && clWaitForEvents(1, &done) == CL_SUCCESS);
    if (done)
        clReleaseEvent(done);
    clReleaseEvent(failed);
    clReleaseEvent(fine);
    clReleaseEvent(foreign);
    clReleaseContext(other);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    oclconv_filter_destroy(f);
    image_free(&img);
}

/* ====== Kernel sources from OCLCONV_KERNEL_DIR ========================= */

/* In a child with an alarm, so that a blocking open or an endless read
 * fails the test rather than hanging it: each source that is not a
 * regular file of sane size is a clear build error. */
static int kernel_dir_child(const char *dir)
{
    alarm(60);
    oclconv_context *ctx = test_context();
    uint64_t rng = 3;
    oclconv_image src = image_random(&rng, 5, 5, 1, OCLCONV_U8, 0);
    oclconv_image dst = image_like(&src, OCLCONV_U8, 0);
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_box(1, 1, &f));
    setenv("OCLCONV_KERNEL_DIR", dir, 1);
    ASSERT_STATUS(ctx, oclconv_apply(ctx, &src, &dst, f, NULL), OCLCONV_E_BUILD);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "common.cl");
    printf("%s\n", oclconv_errmsg(ctx));
    oclconv_filter_destroy(f);
    image_free(&src);
    image_free(&dst);
    oclconv_destroy(ctx);
    return test_exit();
}

/* Runs this program again as a child (a fresh process: a forked one would
 * lack the runtime's threads) with OCLCONV_EDGES_CHILD=name and `arg`;
 * fails the test unless it exits 0. */
static void run_child(const char *self, const char *name, const char *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("OCLCONV_EDGES_CHILD", name, 1);
        setenv("OCLCONV_EDGES_ARG", arg, 1);
        execl("/proc/self/exe", self, (char *)NULL);
        _exit(TEST_HARD_ERROR);
    }
    int status = 0;
    ASSERT(pid > 0 && waitpid(pid, &status, 0) == pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        TEST_FAIL_("%s %s: the child %s %d", name, arg,
                   WIFSIGNALED(status) ? "died of signal" : "exited",
                   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

static void kernel_dir_not_files(const char *self)
{
    static const char *kinds[] = {"fifo", "zero", "huge", "dir"};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        char dir[512], path[600];
        char name[64];
        snprintf(name, sizeof name, "kernel-dir-%s", kinds[k]);
        ASSERT(test_scratch_dir(name, dir, sizeof dir) == 0);
        ASSERT(test_copy_kernel_source(dir, "builtins") == 0);
        snprintf(path, sizeof path, "%s/common.cl", dir);
        unlink(path);
        rmdir(path);
        int made = -1;
        if (k == 0) {
            made = mkfifo(path, 0600);
        } else if (k == 1) {
            made = symlink("/dev/zero", path);
        } else if (k == 2) { /* sparse: 64 MiB of nothing */
            int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            made = fd >= 0 && ftruncate(fd, 64 << 20) == 0 ? 0 : -1;
            if (fd >= 0)
                close(fd);
        } else {
            made = mkdir(path, 0700);
        }
        ASSERT(made == 0);
        run_child(self, "kernel-dir", dir);
        if (k == 2)
            unlink(path);
    }
}

/* OCLCONV_BUILD_OPTIONS reaches every build, after the library's own: an
 * option the compiler does not know fails the call as a build error that
 * names it, and -cl-opt-disable builds what filters as it should. */
static void build_options_env(void)
{
    uint64_t rng = 5;
    oclconv_image src = image_random(&rng, 11, 6, 2, OCLCONV_U8, 0);
    oclconv_image dst = image_like(&src, OCLCONV_U8, 0);
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_gaussian(1.5, 0, 0, 0, &f));
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.border = OCLCONV_BORDER_WRAP;
    setenv("OCLCONV_BUILD_OPTIONS", "-cl-no-such-option", 1);
    oclconv_context *ctx = test_context();
    ASSERT_STATUS(ctx, oclconv_apply(ctx, &src, &dst, f, &opt), OCLCONV_E_BUILD);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "-cl-no-such-option");
    oclconv_destroy(ctx);
    setenv("OCLCONV_BUILD_OPTIONS", "-cl-opt-disable", 1);
    ctx = test_context();
    ref_result ref = ref_of_filter(&src, f, &opt);
    char why[256] = "";
    for (int m = OCLCONV_METHOD_BUFFER; m <= OCLCONV_METHOD_SEPARABLE; m++) {
        opt.method = (oclconv_method)m;
        oclconv_status s;
        long bad = ref_apply_compare(ctx, &src, &dst, f, &opt, &ref, why, sizeof why, &s);
        if (bad != 0)
            TEST_FAIL_("%s under -cl-opt-disable: %s%s", oclconv_method_name(opt.method),
                       bad < 0 ? oclconv_errmsg(ctx) : "", why);
    }
    ref_result_free(&ref);
    oclconv_destroy(ctx);
    unsetenv("OCLCONV_BUILD_OPTIONS");
    oclconv_filter_destroy(f);
    image_free(&src);
    image_free(&dst);
}

/* ====== What reaches standard error ==================================== */

/* With the process's standard error caught in a file: the library's own
 * builds write nothing there; a failed build's diagnostics come back in
 * the message, and all that reaches standard error is the compiler's
 * summary line, "N error(s) generated.", which PoCL's compiler writes to
 * file descriptor 2 itself (the header says why it stays). */
static int build_stderr_child(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/stderr.txt", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600), saved = dup(2);
    if (fd < 0 || saved < 0 || dup2(fd, 2) < 0)
        return TEST_HARD_ERROR;
    oclconv_context *ctx = test_context();
    uint64_t rng = 3;
    oclconv_image src = image_random(&rng, 9, 7, 4, OCLCONV_U8, 0);
    oclconv_image dst = image_like(&src, OCLCONV_F32, 0);
    oclconv_filter *f;
    ASSERT_OK(NULL, oclconv_filter_gaussian(2, 0, 0, 0, &f));
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.border = OCLCONV_BORDER_REFLECT101; /* programs not in the cache yet */
    for (int m = OCLCONV_METHOD_BUFFER; m <= OCLCONV_METHOD_SEPARABLE; m++) {
        opt.method = (oclconv_method)m;
        ASSERT_OK(ctx, oclconv_apply(ctx, &src, &dst, f, &opt));
    }
    off_t quiet = lseek(fd, 0, SEEK_END);
    ASSERT(test_broken_sources(dir) == 0);
    setenv("OCLCONV_KERNEL_DIR", dir, 1);
    opt.method = OCLCONV_METHOD_BUFFER;
    oclconv_context *fresh = test_context(); /* builds nothing from the cache */
    oclconv_status s = oclconv_apply(fresh, &src, &dst, f, &opt);
    dup2(saved, 2);
    ASSERT_STATUS(fresh, s, OCLCONV_E_BUILD);
    ASSERT_CONTAINS(oclconv_errmsg(fresh), "undefined_name");
    oclconv_destroy(fresh);
    char text[4096] = "";
    ssize_t got = pread(fd, text, sizeof text - 1, 0);
    text[got > 0 ? got : 0] = '\0';
    if (quiet != 0)
        TEST_FAIL_("builds that succeeded wrote to standard error: %s", text);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        int count = 0, end = 0;
        if (sscanf(line, "%d error%*[s] generated.%n", &count, &end) < 1 || line[end] != '\0')
            if (sscanf(line, "%d error generated.%n", &count, &end) < 1 || line[end] != '\0')
                TEST_FAIL_("a failed build wrote more than the compiler's summary: \"%s\"",
                           line);
    }
    close(fd);
    oclconv_filter_destroy(f);
    image_free(&src);
    image_free(&dst);
    oclconv_destroy(ctx);
    return test_exit();
}

int main(int argc, char **argv)
{
    (void)argc;
    const char *child = getenv("OCLCONV_EDGES_CHILD"), *arg = getenv("OCLCONV_EDGES_ARG");
    if (child && arg && strcmp(child, "kernel-dir") == 0)
        return kernel_dir_child(arg);
    if (child && arg && strcmp(child, "build-stderr") == 0)
        return build_stderr_child(arg);
    /* Two devices, for a device that is not in a context. */
    setenv("POCL_DEVICES", "pthread pthread", 1);
    gaussian_ends();
    foreign_cl_objects();
    oclconv_context *ctx = test_context();
    normalize_exact_sum(ctx);
    float_range(ctx);
    overlapping_sub_buffers(ctx);
    failed_wait_list(ctx);
    oclconv_destroy(ctx);
    kernel_dir_not_files(argv[0]);
    build_options_env();
    char dir[512];
    ASSERT(test_scratch_dir("build-stderr", dir, sizeof dir) == 0);
    run_child(argv[0], "build-stderr", dir);
    return test_exit();
}
