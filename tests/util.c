#include "util.h"

#include "test.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CANARY 0xA5

uint32_t rng_next(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (uint32_t)(*state >> 16);
}

double rng_uniform(uint64_t *state, double lo, double hi)
{
    return lo + (hi - lo) * (rng_next(state) / 4294967296.0);
}

size_t value_size(oclconv_type t)
{
    return t == OCLCONV_U8 ? 1 : t == OCLCONV_U16 ? 2 : 4;
}

static oclconv_image image_alloc(int width, int height, int channels, oclconv_type type,
                                 size_t extra)
{
    size_t vs = value_size(type), row = (size_t)width * (size_t)channels * vs;
    extra = (extra + vs - 1) / vs * vs;
    oclconv_image img = {NULL, width, height, channels, type, extra ? row + extra : 0};
    size_t bytes = (row + extra) * (size_t)height;
    img.data = malloc(bytes ? bytes : 1);
    if (!img.data) {
        fprintf(stderr, "out of memory\n");
        exit(TEST_HARD_ERROR);
    }
    memset(img.data, CANARY, bytes);
    return img;
}

/* The bytes of a row's values, without padding. */
static size_t packed_row(const oclconv_image *img)
{
    return (size_t)img->width * (size_t)img->channels * value_size(img->type);
}

static size_t row_bytes(const oclconv_image *img)
{
    return img->stride ? img->stride : packed_row(img);
}

size_t image_bytes(const oclconv_image *img)
{
    return row_bytes(img) * (size_t)img->height;
}

oclconv_image image_random(uint64_t *rng, int width, int height, int channels, oclconv_type type,
                           size_t extra)
{
    oclconv_image img = image_alloc(width, height, channels, type, extra);
    size_t row = row_bytes(&img);
    for (int y = 0; y < height; y++) {
        unsigned char *p = (unsigned char *)img.data + (size_t)y * row;
        for (int k = 0; k < width * channels; k++) {
            if (type == OCLCONV_U8)
                p[k] = (unsigned char)rng_next(rng);
            else if (type == OCLCONV_U16)
                ((uint16_t *)p)[k] = (uint16_t)rng_next(rng);
            else
                ((float *)p)[k] = (float)rng_uniform(rng, -100, 300);
        }
    }
    return img;
}

oclconv_image image_like(const oclconv_image *like, oclconv_type type, size_t extra)
{
    return image_alloc(like->width, like->height, like->channels, type, extra);
}

void image_free(oclconv_image *img)
{
    free(img->data);
    img->data = NULL;
}

int image_padding_intact(const oclconv_image *img)
{
    size_t row = packed_row(img);
    if (!img->stride)
        return 1;
    for (int y = 0; y < img->height; y++) {
        const unsigned char *p = (const unsigned char *)img->data + (size_t)y * img->stride;
        for (size_t k = row; k < img->stride; k++)
            if (p[k] != CANARY)
                return 0;
    }
    return 1;
}

oclconv_context *test_context(void)
{
    oclconv_context *ctx = NULL;
    oclconv_status s = oclconv_create(NULL, &ctx);
    if (s != OCLCONV_OK) {
        fprintf(stderr, "no OpenCL device: %s: %s\n", oclconv_strerror(s), oclconv_errmsg(NULL));
        exit(TEST_HARD_ERROR);
    }
    return ctx;
}

const char *other_shapes(oclconv_context *ctx)
{
    cl_device_type type = 0;
    clGetDeviceInfo(oclconv_cl_device(ctx), CL_DEVICE_TYPE, sizeof type, &type, NULL);
    return type & CL_DEVICE_TYPE_CPU ? "gpu" : "cpu";
}

const char *use_shapes(oclconv_context *ctx, int other)
{
    unsetenv("OCLCONV_TUNE");
    unsetenv("OCLCONV_BUILD_OPTIONS");
    if (!other)
        return "its own";
    const char *tune = other_shapes(ctx);
    setenv("OCLCONV_TUNE", tune, 1);
    if (strcmp(tune, "gpu") == 0)
        unoptimised_kernels();
    return tune;
}

void unoptimised_kernels(void)
{
    setenv("OCLCONV_BUILD_OPTIONS", "-cl-opt-disable", 0);
}

int gpu_shapes(oclconv_context *ctx)
{
    const char *tune = getenv("OCLCONV_TUNE");
    return tune && *tune ? strcmp(tune, "gpu") == 0 : strcmp(other_shapes(ctx), "cpu") == 0;
}

const char *test_build_dir(void)
{
    const char *build = getenv("OCLCONV_BUILD");
    return build && *build ? build : "build";
}

int test_scratch_dir(const char *name, char *path, size_t size)
{
    const char *made[] = {test_build_dir(), "tests", name};
    size_t used = 0;
    for (int i = 0; i < 3; i++) {
        int n = snprintf(path + used, size - used, "%s%s", i ? "/" : "", made[i]);
        if (n < 0 || (size_t)n >= size - used)
            return -1;
        used += (size_t)n;
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            return -1;
    }
    return 0;
}

int test_copy_kernel_source(const char *dir, const char *name)
{
    char from[256], to[600], buf[4096];
    snprintf(from, sizeof from, "cl/%s.cl", name);
    snprintf(to, sizeof to, "%s/%s.cl", dir, name);
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    int ok = in && out;
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

int test_broken_sources(const char *dir)
{
    char path[600];
    if (test_copy_kernel_source(dir, "builtins") != 0 ||
        test_copy_kernel_source(dir, "common") != 0 || test_copy_kernel_source(dir, "chunks") != 0)
        return -1;
    snprintf(path, sizeof path, "%s/buffer.cl", dir);
    FILE *out = fopen(path, "wb");
    if (!out)
        return -1;
    fputs("__kernel void convolve_buffer(__global int *p) { p[0] = undefined_name; }\n", out);
    return fclose(out) == 0 ? 0 : -1;
}

const char *type_name(oclconv_type t)
{
    return t == OCLCONV_U8 ? "u8" : t == OCLCONV_U16 ? "u16" : "f32";
}

const char *border_name(oclconv_border b)
{
    static const char *names[] = {"clamp", "zero", "constant", "reflect", "reflect101", "wrap",
                                  "normalize"};
    return (unsigned)b < 7 ? names[b] : "?";
}

oclconv_options border_options(oclconv_border border, float value)
{
    oclconv_options opt;
    oclconv_options_init(&opt);
    opt.border = border;
    opt.border_value = value;
    return opt;
}
