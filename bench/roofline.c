/* The device's own rates, the roofline's two sides: its copy rate for an
 * image's bytes and its FP32 rate. */
#include "bench.h"

#include <stdio.h>

static double event_seconds(cl_event ev)
{
    cl_ulong t0 = 0, t1 = 0;
    if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) !=
            CL_SUCCESS ||
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) != CL_SUCCESS)
        return 0;
    return 1e-9 * (double)(t1 - t0);
}

/* A copy kernel of our own: 16-byte vectors, COPY_EACH a work-item, the
 * work-items of a launch side by side on each (a warp's loads coalesce). */
#define COPY_EACH 4
static const char copy_source[] =
    "__kernel void copy16(__global const uint4 *a, __global uint4 *b, uint n)\n"
    "{\n"
    "    uint i = get_global_id(0), step = get_global_size(0);\n"
    "    for (int k = 0; k < COPY_EACH; k++, i += step)\n"
    "        if (i < n)\n"
    "            b[i] = a[i];\n"
    "}\n";

/* The best of `runs` timed launches of k (after one untimed), or of
 * clEnqueueCopyBuffer where k is NULL; 0 when none ran. */
static double best_copy(cl_command_queue q, cl_kernel k, cl_mem a, cl_mem b, size_t bytes,
                        int runs)
{
    size_t n = bytes / 16, items = (n + COPY_EACH - 1) / COPY_EACH;
    double best = 0;
    for (int i = 0; i <= runs; i++) {
        cl_event ev;
        cl_int err = k ? clEnqueueNDRangeKernel(q, k, 1, NULL, &items, NULL, 0, NULL, &ev)
                       : clEnqueueCopyBuffer(q, a, b, 0, 0, bytes, 0, NULL, &ev);
        if (err != CL_SUCCESS)
            break;
        clWaitForEvents(1, &ev);
        double s = event_seconds(ev);
        clReleaseEvent(ev);
        if (i > 0 && s > 0 && (best == 0 || s < best)) /* the first is the warm-up */
            best = s;
    }
    return best;
}

double copy_seconds(oclconv_context *ctx, size_t bytes, int runs, double *call, double *kernel)
{
    cl_context cl = oclconv_cl_context(ctx);
    cl_device_id dev = oclconv_cl_device(ctx);
    cl_command_queue q = oclconv_cl_queue(ctx);
    cl_int err, e2;
    cl_mem a = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem b = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &e2);
    *call = *kernel = 0;
    if (err == CL_SUCCESS && e2 == CL_SUCCESS) {
        const cl_uchar pattern = 0x5A;
        clEnqueueFillBuffer(q, a, &pattern, 1, 0, bytes, 0, NULL, NULL);
        clEnqueueFillBuffer(q, b, &pattern, 1, 0, bytes, 0, NULL, NULL);
        *call = best_copy(q, NULL, a, b, bytes, runs);
        const char *src = copy_source;
        cl_program p = bytes % 16 == 0 && bytes / 16 <= 0xFFFFFFFFu
                           ? clCreateProgramWithSource(cl, 1, &src, NULL, &err)
                           : NULL;
        cl_kernel k = NULL;
        char options[32];
        snprintf(options, sizeof options, "-DCOPY_EACH=%d", COPY_EACH);
        if (p && clBuildProgram(p, 1, &dev, options, NULL, NULL) == CL_SUCCESS)
            k = clCreateKernel(p, "copy16", &err);
        cl_uint n = (cl_uint)(bytes / 16);
        if (k && clSetKernelArg(k, 0, sizeof a, &a) == CL_SUCCESS &&
            clSetKernelArg(k, 1, sizeof b, &b) == CL_SUCCESS &&
            clSetKernelArg(k, 2, sizeof n, &n) == CL_SUCCESS)
            *kernel = best_copy(q, k, a, b, bytes, runs);
        if (k)
            clReleaseKernel(k);
        if (p)
            clReleaseProgram(p);
    }
    if (a)
        clReleaseMemObject(a);
    if (b)
        clReleaseMemObject(b);
    return *kernel > 0 && (*call == 0 || *kernel < *call) ? *kernel : *call;
}

/* Independent chains of mad() per work-item, in two shapes: eight float16
 * chains fill the wide vector units of CPUs (PoCL does not vectorise across
 * work-items here), eight float4 chains keep a GPU's registers few.  The
 * faster of the two is the device's rate. */
static const char fp32_source[] =
    "#define CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)\n"
    "#define MAD(i) x##i = mad(x##i, a, b);\n"
    "#define INIT(i) floatN x##i = seed + (float)(i) * 0.1f;\n"
    "#define SUM(i) + x##i\n"
    "__kernel void mad_rate(__global float *out, float a, float b)\n"
    "{\n"
    "    floatN seed = (floatN)((float)(get_global_id(0) & 255) * 1e-3f);\n"
    "    CHAINS(INIT)\n"
    "    for (int i = 0; i < ITER; i++) {\n"
    "        CHAINS(MAD)\n"
    "    }\n"
    "    floatN s = 0 CHAINS(SUM);\n"
    /* Every lane reaches the output, or the compiler drops the unused ones. */
    "#if WIDTH == 16\n"
    "    float8 s8 = s.lo + s.hi;\n"
    "    float4 s4 = s8.lo + s8.hi;\n"
    "#else\n"
    "    float4 s4 = s;\n"
    "#endif\n"
    "    out[get_global_id(0)] = dot(s4, (float4)(1.0f));\n"
    "}\n";

/* The flop/s of one build of fp32_source (vector width `width`), the best of
 * 5 launches that take at least 20 ms each; 0 on failure. */
static double fp32_variant(oclconv_context *ctx, int width, int iterations)
{
    cl_context cl = oclconv_cl_context(ctx);
    cl_device_id dev = oclconv_cl_device(ctx);
    cl_command_queue q = oclconv_cl_queue(ctx);
    const char *src = fp32_source;
    char options[64];
    snprintf(options, sizeof options, "-DfloatN=float%d -DWIDTH=%d -DITER=%d", width, width,
             iterations);
    cl_int err;
    double best = 0, per_item = 2.0 * 8 * width * iterations;
    cl_program p = clCreateProgramWithSource(cl, 1, &src, NULL, &err);
    if (err != CL_SUCCESS)
        return 0;
    cl_kernel k = NULL;
    cl_mem out = NULL;
    const size_t max_items = (size_t)1 << 24;
    if (clBuildProgram(p, 1, &dev, options, NULL, NULL) == CL_SUCCESS)
        k = clCreateKernel(p, "mad_rate", &err);
    if (k)
        out = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, max_items * sizeof(float), NULL, &err);
    if (out) {
        float a = 0.999f, b = 0.001f;
        clSetKernelArg(k, 0, sizeof out, &out);
        clSetKernelArg(k, 1, sizeof a, &a);
        clSetKernelArg(k, 2, sizeof b, &b);
        int n = 0;
        for (size_t items = (size_t)1 << 12; items <= max_items && n < 5;) {
            cl_event ev;
            if (clEnqueueNDRangeKernel(q, k, 1, NULL, &items, NULL, 0, NULL, &ev) != CL_SUCCESS)
                break;
            clWaitForEvents(1, &ev);
            double t = event_seconds(ev);
            clReleaseEvent(ev);
            if (t <= 0)
                break;
            if (t < 0.02 && items < max_items) {
                items *= 2;
                continue;
            }
            double rate = per_item * (double)items / t;
            if (rate > best)
                best = rate;
            n++;
        }
    }
    if (out)
        clReleaseMemObject(out);
    if (k)
        clReleaseKernel(k);
    clReleaseProgram(p);
    return best;
}

double fp32_rate(oclconv_context *ctx)
{
    double wide = fp32_variant(ctx, 16, 32), narrow = fp32_variant(ctx, 4, 128);
    return wide > narrow ? wide : narrow;
}
