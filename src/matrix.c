/* Matrix products for the separable tiles' rows (cl/matrix.cl): whether
 * the device has them, and a row's taps as their integer digits. */
#include "internal.h"

#include <CL/cl_ext.h>
#include <math.h>

/* The probe's operands, as cl/matrix.cl's matrix_probe makes them. */
static double probe_a(int m, int k)
{
    return (7 * m + 13 * k) % 41 * 50 - 1000;
}

static double probe_b(int k, int n)
{
    return (31 * k + 17 * n) % 256;
}

/* NVIDIA's GPUs of compute capability 8 or later (its
 * cl_nv_device_attribute_query) take mma.sync through inline PTX; the
 * probe kernel, built and run once, confirms that this driver does and
 * that its products are the integers they must be.  Any failure on the
 * way leaves the device without them, never an error. */
static int probe(oclconv_context *ctx)
{
    cl_uint major = 0;
    if (!(ctx->facts.type & CL_DEVICE_TYPE_GPU) ||
        clGetDeviceInfo(ctx->device, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major, &major,
                        NULL) != CL_SUCCESS ||
        major < 8)
        return 0;
    cl_kernel k;
    float got[128];
    size_t one = 32;
    cl_int err;
    if (oclconv__get_kernel(ctx, "matrix", "matrix_probe", "-DROW_MMA=1 -DMATRIX_PROBE", &k) !=
        OCLCONV_OK) {
        oclconv__clear_error(ctx);
        return 0;
    }
    cl_mem out = clCreateBuffer(ctx->cl, CL_MEM_WRITE_ONLY, sizeof got, NULL, &err);
    if (err != CL_SUCCESS)
        return 0;
    int ok = clSetKernelArg(k, 0, sizeof out, &out) == CL_SUCCESS &&
             clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &one, &one, 0, NULL, NULL) ==
                 CL_SUCCESS &&
             clEnqueueReadBuffer(ctx->queue, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL) ==
                 CL_SUCCESS;
    clReleaseMemObject(out);
    for (int m = 0; m < 16 && ok; m++)
        for (int n = 0; n < 8; n++) {
            double want = 0;
            for (int i = 0; i < 16; i++)
                want += probe_a(m, i) * probe_b(i, n);
            ok &= got[m * 8 + n] == 2 * want;
        }
    return ok;
}

int oclconv__matrix_units(oclconv_context *ctx)
{
    if (ctx->facts.matrix_units < 0)
        ctx->facts.matrix_units = probe(ctx);
    return ctx->facts.matrix_units;
}

/* S puts the largest |w| under 2^31, so that the digits d2 2^22 + d1 2^11
 * + d0 of each w 2^S, rounded to an integer, are at most 512, 1024 and
 * 1024 in magnitude (cl/matrix.cl's bound on a digit's sums needs 1024). */
int oclconv__matrix_taps(const float *w, int n, float *digits, double *unit, double *error)
{
    double most = 0;
    for (int i = 0; i < n; i++)
        most = fmax(most, fabs(w[i]));
    int e;
    frexp(most, &e); /* most < 2^e */
    int s = 31 - e;
    if (most == 0 || s > 126 || s < -126)
        return 0;
    *unit = ldexp(1, s);
    *error = 0;
    for (int i = 0; i < n; i++) {
        double q = ldexp(w[i], s);
        double d2 = nearbyint(ldexp(q, -22)), rest = q - ldexp(d2, 22);
        double d1 = nearbyint(ldexp(rest, -11)), d0 = nearbyint(rest - ldexp(d1, 11));
        digits[i] = (float)d0;
        digits[n + i] = (float)d1;
        digits[2 * n + i] = (float)d2;
        *error += fabs(w[i] - ldexp(ldexp(d2, 22) + ldexp(d1, 11) + d0, -s));
    }
    return 1;
}
