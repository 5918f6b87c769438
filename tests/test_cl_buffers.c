/*
 * oclconv_apply_cl(): buffers the application holds, its queue, a wait list
 * and a completion event; no host copies, no waiting inside.  Results agree
 * with the reference; the work waits for the events it is given; in place
 * works; bad buffers are refused.
 */
#include "test.h"
#include "util.h"

static cl_mem buffer_of(cl_context cl, const oclconv_image *img, size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(cl, CL_MEM_READ_WRITE | (img ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              img ? img->data : NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateBuffer: %d\n", err);
        exit(TEST_HARD_ERROR);
    }
    return m;
}

static void read_back(cl_command_queue q, cl_mem m, oclconv_image *img, size_t bytes)
{
    ASSERT(clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, img->data, 0, NULL, NULL) == CL_SUCCESS);
}

static size_t bytes_of(const oclconv_image *img)
{
    return (size_t)img->width * (size_t)img->height * (size_t)img->channels *
           value_size(img->type);
}

static void check(const oclconv_image *src, const oclconv_image *got, const oclconv_filter *f,
                  const oclconv_options *opt, const char *what)
{
    int fw, fh;
    oclconv_filter_size(f, &fw, &fh);
    ref_result ref;
    char why[256] = "";
    ASSERT(ref_convolve(src, fw, fh, oclconv_filter_weights(f), opt, &ref) == 0);
    long bad = ref_compare(got, &ref, why, sizeof why);
    if (bad)
        TEST_FAIL_("%s: %ld mismatches, %s", what, bad, why);
    ref_result_free(&ref);
}

/* A 41x17 image of cn 8-bit channels filtered on a buffer path, held back
 * by a user event until we let it go; the path may refuse a filter not
 * its kind, and then enqueues nothing. */
static void gated(oclconv_context *ctx, uint64_t *rng, oclconv_method method,
                  const oclconv_filter *f, int cn, const char *what)
{
    cl_context cl = oclconv_cl_context(ctx);
    oclconv_image src = image_random(rng, 41, 17, cn, OCLCONV_U8, 0);
    oclconv_image got = image_like(&src, OCLCONV_F32, 0);
    cl_mem in = buffer_of(cl, &src, bytes_of(&src)), out = buffer_of(cl, NULL, bytes_of(&got));
    oclconv_cl_image s = {in, 41, 17, cn, OCLCONV_U8}, d = {out, 41, 17, cn, OCLCONV_F32};
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.method = method;
    opt.border = OCLCONV_BORDER_REFLECT;
    cl_int err;
    cl_event gate = clCreateUserEvent(cl, &err), done = NULL;
    oclconv_status st = oclconv_apply_cl(ctx, &s, &d, f, &opt, 1, &gate, &done);
    if (st == OCLCONV_E_UNSUPPORTED) { /* a separable or box path, a filter not its kind */
        ASSERT(done == NULL);
    } else {
        ASSERT_OK(ctx, st);
        ASSERT(done != NULL);
        cl_int state = CL_COMPLETE;
        clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL);
        ASSERT(state != CL_COMPLETE); /* still held back by the gate */
        clSetUserEventStatus(gate, CL_COMPLETE);
        ASSERT(clWaitForEvents(1, &done) == CL_SUCCESS);
        read_back(oclconv_cl_queue(ctx), out, &got, bytes_of(&got));
        check(&src, &got, f, &opt, what);
        clReleaseEvent(done);
    }
    clSetUserEventStatus(gate, CL_COMPLETE);
    clReleaseEvent(gate);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    image_free(&src);
    image_free(&got);
}

int main(void)
{
    oclconv_context *ctx = test_context();
    cl_context cl = oclconv_cl_context(ctx);
    cl_command_queue q = oclconv_cl_queue(ctx);
    uint64_t rng = 2024;
    oclconv_filter *gauss, *sharpen, *box;
    ASSERT_OK(NULL, oclconv_filter_gaussian(1.5, 0, 0, 0, &gauss));
    ASSERT_OK(NULL, oclconv_filter_sharpen(0.7f, &sharpen));
    ASSERT_OK(NULL, oclconv_filter_box(4, 2, &box));
    const oclconv_filter *filters[] = {gauss, sharpen, box};
    const oclconv_method methods[] = {OCLCONV_METHOD_AUTO, OCLCONV_METHOD_BUFFER,
                                      OCLCONV_METHOD_TILED, OCLCONV_METHOD_SEPARABLE,
                                      OCLCONV_METHOD_BOX};

    /* Every buffer path, in the device's kernel shapes and the other
     * type's (OCLCONV_TUNE); the box on 8-bit RGBA, which GPUs make in
     * quads. */
    for (int shapes = 0; shapes < 2; shapes++) {
        use_shapes(ctx, shapes);
        for (size_t m = 0; m < sizeof methods / sizeof *methods; m++)
            for (size_t k = 0; k < sizeof filters / sizeof *filters; k++) {
                char what[64];
                snprintf(what, sizeof what, "%s, filter %zu, %s shapes",
                         oclconv_method_name(methods[m]), k, shapes ? "other" : "own");
                gated(ctx, &rng, methods[m], filters[k], filters[k] == box ? 4 : 3, what);
            }
    }
    use_shapes(ctx, 0);

    /* In place, and with no events at all. */
    oclconv_image src = image_random(&rng, 30, 20, 4, OCLCONV_F32, 0);
    oclconv_image got = image_like(&src, OCLCONV_F32, 0);
    cl_mem both = buffer_of(cl, &src, bytes_of(&src));
    oclconv_cl_image io = {both, 30, 20, 4, OCLCONV_F32};
    ASSERT_OK(ctx, oclconv_apply_cl(ctx, &io, &io, gauss, NULL, 0, NULL, NULL));
    ASSERT(clFinish(q) == CL_SUCCESS);
    read_back(q, both, &got, bytes_of(&got));
    check(&src, &got, gauss, NULL, "in place");

    /* Images in oclconv_host_alloc() memory, filtered with oclconv_apply(). */
    {
        oclconv_image h = image_random(&rng, 53, 29, 4, OCLCONV_U8, 0);
        oclconv_image hs = h, hd = h;
        size_t n = bytes_of(&h);
        void *leak = NULL;
        ASSERT_OK(ctx, oclconv_host_alloc(ctx, n, &hs.data));
        ASSERT_OK(ctx, oclconv_host_alloc(ctx, n, &hd.data));
        ASSERT_OK(ctx, oclconv_host_alloc(ctx, 100, &leak)); /* left for oclconv_destroy */
        ASSERT(hs.data && hd.data && hs.data != hd.data);
        memcpy(hs.data, h.data, n);
        memset(hd.data, 0xAB, n);
        ASSERT_OK(ctx, oclconv_apply(ctx, &hs, &hd, gauss, NULL));
        check(&h, &hd, gauss, NULL, "host_alloc memory");
        ASSERT_OK(ctx, oclconv_apply(ctx, &hs, &hs, sharpen, NULL)); /* in place */
        check(&h, &hs, sharpen, NULL, "host_alloc memory, in place");
        void *p = (void *)&p;
        ASSERT_STATUS(ctx, oclconv_host_alloc(ctx, 0, &p), OCLCONV_E_INVALID_ARG);
        ASSERT(p == (void *)&p); /* refused before touching out */
        ASSERT_STATUS(ctx, oclconv_host_alloc(ctx, 16, NULL), OCLCONV_E_INVALID_ARG);
        ASSERT_STATUS(NULL, oclconv_host_alloc(NULL, 16, &p), OCLCONV_E_INVALID_ARG);
        ASSERT_STATUS(ctx, oclconv_host_free(ctx, h.data), OCLCONV_E_INVALID_ARG);
        ASSERT_CONTAINS(oclconv_errmsg(ctx), "did not come from oclconv_host_alloc");
        ASSERT_OK(ctx, oclconv_host_free(ctx, NULL));
        ASSERT_OK(ctx, oclconv_host_free(ctx, hs.data));
        ASSERT_OK(ctx, oclconv_host_free(ctx, hd.data));
        ASSERT_STATUS(ctx, oclconv_host_free(ctx, hd.data), OCLCONV_E_INVALID_ARG); /* twice */
        image_free(&h);
    }

    /* Refusals: nothing enqueued, no event. */
    cl_event done = (cl_event)&done;
    oclconv_cl_image bad = io;
    bad.mem = NULL;
    ASSERT_STATUS(ctx, oclconv_apply_cl(ctx, &bad, &io, gauss, NULL, 0, NULL, &done),
                  OCLCONV_E_INVALID_ARG);
    ASSERT(done == NULL);
    bad = io;
    bad.height = 21; /* more than the buffer holds */
    ASSERT_STATUS(ctx, oclconv_apply_cl(ctx, &bad, &bad, gauss, NULL, 0, NULL, &done),
                  OCLCONV_E_INVALID_ARG);
    ASSERT_CONTAINS(oclconv_errmsg(ctx), "fewer than");
    ASSERT_STATUS(ctx, oclconv_apply_cl(ctx, &io, &io, gauss, NULL, 1, NULL, &done),
                  OCLCONV_E_INVALID_ARG);
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.method = OCLCONV_METHOD_IMAGE;
    ASSERT_STATUS(ctx, oclconv_apply_cl(ctx, &io, &io, gauss, &opt, 0, NULL, &done),
                  OCLCONV_E_UNSUPPORTED);
    ASSERT_STATUS(NULL, oclconv_apply_cl(NULL, &io, &io, gauss, NULL, 0, NULL, &done),
                  OCLCONV_E_INVALID_ARG);

    clReleaseMemObject(both);
    image_free(&src);
    image_free(&got);
    oclconv_filter_destroy(gauss);
    oclconv_filter_destroy(sharpen);
    oclconv_filter_destroy(box);
    oclconv_destroy(ctx);
    return test_exit();
}
