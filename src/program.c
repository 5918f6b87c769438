/*
 * Programs: the embedded cl/ sources (or, with OCLCONV_KERNEL_DIR, the files
 * on disk), compiled once per (source, build options) and cached in the
 * context with the kernels made from them.
 */
#include "program.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_KERNELS 6
/* The largest kernel source file OCLCONV_KERNEL_DIR may hold (the largest
 * in cl/ is under 100 KB). */
#define OCLCONV_MAX_SOURCE (4 << 20)

typedef struct cache_entry {
    struct cache_entry *next;
    char *source;
    char *options;
    cl_program program;
    int kernel_count;
    struct {
        char *name;
        cl_kernel kernel;
    } kernels[MAX_KERNELS];
} cache_entry;

struct oclconv__program_cache {
    cache_entry *first;
};

void oclconv__program_cache_free(oclconv__program_cache *cache)
{
    if (!cache)
        return;
    cache_entry *e = cache->first;
    while (e) {
        cache_entry *next = e->next;
        for (int i = 0; i < e->kernel_count; i++) {
            clReleaseKernel(e->kernels[i].kernel);
            free(e->kernels[i].name);
        }
        if (e->program)
            clReleaseProgram(e->program);
        free(e->source);
        free(e->options);
        free(e);
        e = next;
    }
    free(cache);
}

/* The text of cl/<name>.cl: from OCLCONV_KERNEL_DIR when set (malloc'ed),
 * else the embedded copy (*owned = 0). */
static oclconv_status load_source(oclconv_context *ctx, const char *name, const char **text,
                                  int *owned)
{
    const char *dir = getenv("OCLCONV_KERNEL_DIR");
    *owned = 0;
    if (!dir || !*dir) {
        for (const oclconv__cl_source *s = oclconv__cl_sources; s->name; s++)
            if (strcmp(s->name, name) == 0) {
                *text = s->text;
                return OCLCONV_OK;
            }
        return oclconv__fail(ctx, OCLCONV_E_BUILD, "no embedded kernel source %s.cl", name);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.cl", dir, name);
    /* Only a regular file, opened without blocking (a FIFO would wait for
     * a writer) and read to its size (a device such as /dev/zero never
     * ends). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return oclconv__fail(ctx, OCLCONV_E_BUILD, "cannot open kernel source %s "
                             "(OCLCONV_KERNEL_DIR): %s", path, strerror(errno));
    struct stat st;
    oclconv_status s = OCLCONV_OK;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        s = oclconv__fail(ctx, OCLCONV_E_BUILD, "kernel source %s (OCLCONV_KERNEL_DIR) is not a "
                          "regular file", path);
    else if (st.st_size > OCLCONV_MAX_SOURCE)
        s = oclconv__fail(ctx, OCLCONV_E_BUILD, "kernel source %s (OCLCONV_KERNEL_DIR) holds "
                          "%lld bytes, more than %d", path, (long long)st.st_size,
                          OCLCONV_MAX_SOURCE);
    size_t size = s == OCLCONV_OK ? (size_t)st.st_size : 0, len = 0;
    char *buf = s == OCLCONV_OK ? malloc(size + 1) : NULL;
    if (s == OCLCONV_OK && !buf)
        s = oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory reading %s", path);
    while (s == OCLCONV_OK && len < size) {
        ssize_t got = read(fd, buf + len, size - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) /* shrunk while read, or an error: the text is not whole */
            s = oclconv__fail(ctx, OCLCONV_E_BUILD, "cannot read kernel source %s: %s", path,
                              got < 0 ? strerror(errno) : "it ended early");
        else
            len += (size_t)got;
    }
    close(fd);
    if (s != OCLCONV_OK) {
        free(buf);
        return s;
    }
    buf[len] = '\0';
    *text = buf;
    *owned = 1;
    return OCLCONV_OK;
}

/* The files of a program: builtins.cl where the compiler is PoCL's, then
 * common.cl, then each one `source` names, apart by spaces (a family's
 * shared file before one shape's: "box box_gpu"). */
#define MAX_FILES 5

static oclconv_status build(oclconv_context *ctx, const char *source, const char *options,
                            cl_program *out)
{
    const char *texts[MAX_FILES];
    int owned[MAX_FILES] = {0}, count = 0;
    char files[256] = "";
    oclconv_status s = OCLCONV_OK;
    if (ctx->facts.own_builtins)
        s = load_source(ctx, "builtins", &texts[count], &owned[count]);
    count += s == OCLCONV_OK && ctx->facts.own_builtins;
    if (s == OCLCONV_OK)
        s = load_source(ctx, "common", &texts[count], &owned[count]);
    count += s == OCLCONV_OK;
    for (const char *p = source; s == OCLCONV_OK && *p; p += strspn(p, " ")) {
        char name[64];
        size_t n = strcspn(p, " "), used = strlen(files);
        if (count == MAX_FILES || n >= sizeof name) {
            s = oclconv__fail(ctx, OCLCONV_E_BUILD, "cannot take the kernel files \"%s\"",
                              source);
            break;
        }
        memcpy(name, p, n);
        name[n] = '\0';
        p += n;
        snprintf(files + used, sizeof files - used, "%s%s.cl", used ? " + " : "", name);
        s = load_source(ctx, name, &texts[count], &owned[count]);
        count++;
    }
    cl_program program = NULL;
    if (s == OCLCONV_OK) {
        cl_int err;
        program = clCreateProgramWithSource(ctx->cl, (cl_uint)count, texts, NULL, &err);
        if (err != CL_SUCCESS)
            s = oclconv__cl_fail(ctx, err, "clCreateProgramWithSource");
    }
    if (s == OCLCONV_OK) {
        cl_int err = clBuildProgram(program, 1, &ctx->device, options, NULL, NULL);
        ctx->programs_built++;
        if (err != CL_SUCCESS) {
            s = err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS
                    ? oclconv__fail(ctx, OCLCONV_E_BUILD, "building %s with \"%s\" failed: %s; "
                                    "build log:\n", files, options, oclconv__cl_error_name(err))
                    : oclconv__cl_fail(ctx, err, "clBuildProgram");
            size_t log_size = 0;
            clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size);
            char *log = log_size ? malloc(log_size + 1) : NULL;
            if (log && clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, log_size,
                                             log, NULL) == CL_SUCCESS) {
                log[log_size] = '\0';
                oclconv__append_error(ctx, log);
            }
            free(log);
        }
    }
    for (int i = 0; i < count; i++)
        if (owned[i])
            free((void *)(uintptr_t)texts[i]);
    if (s != OCLCONV_OK && program) {
        clReleaseProgram(program);
        program = NULL;
    }
    *out = program;
    return s;
}

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    return c ? memcpy(c, s, n) : NULL;
}

static oclconv_status find_program(oclconv_context *ctx, const char *source, const char *options,
                                   cache_entry **out)
{
    if (!ctx->programs) {
        ctx->programs = calloc(1, sizeof *ctx->programs);
        if (!ctx->programs)
            return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for the program cache");
    }
    for (cache_entry *e = ctx->programs->first; e; e = e->next)
        if (strcmp(e->source, source) == 0 && strcmp(e->options, options) == 0) {
            *out = e;
            return OCLCONV_OK;
        }
    cache_entry *e = calloc(1, sizeof *e);
    if (e) {
        e->source = copy_string(source);
        e->options = copy_string(options);
    }
    if (!e || !e->source || !e->options) {
        if (e) {
            free(e->source);
            free(e->options);
        }
        free(e);
        return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for the program cache");
    }
    oclconv_status s = build(ctx, source, options, &e->program);
    if (s != OCLCONV_OK) {
        free(e->source);
        free(e->options);
        free(e);
        return s;
    }
    e->next = ctx->programs->first;
    ctx->programs->first = e;
    *out = e;
    return OCLCONV_OK;
}

oclconv_status oclconv__get_kernel(oclconv_context *ctx, const char *source, const char *kernel,
                                   const char *options, cl_kernel *out)
{
    /* On PoCL, _OPENCL_H_ keeps clang's declarations of every built-in out
     * (cl/builtins.cl declares those the kernels call).  OCLCONV_BUILD_OPTIONS
     * goes after the library's own options. */
    const char *extra = getenv("OCLCONV_BUILD_OPTIONS");
    const char *guard = ctx->facts.own_builtins ? " -D_OPENCL_H_" : "";
    char all[2048];
    size_t mine = strlen(options) + strlen(guard);
    if ((size_t)snprintf(all, sizeof all, "%s%s%s%s", options, guard, extra && *extra ? " " : "",
                         extra ? extra : "") >= sizeof all)
        return oclconv__fail(ctx, OCLCONV_E_BUILD, "OCLCONV_BUILD_OPTIONS is longer than %zu "
                             "bytes", sizeof all - mine - 2);
    options = all;
    cache_entry *e = NULL;
    oclconv_status s = find_program(ctx, source, options, &e);
    if (s != OCLCONV_OK)
        return s;
    for (int i = 0; i < e->kernel_count; i++)
        if (strcmp(e->kernels[i].name, kernel) == 0) {
            *out = e->kernels[i].kernel;
            return OCLCONV_OK;
        }
    if (e->kernel_count == MAX_KERNELS)
        return oclconv__fail(ctx, OCLCONV_E_BUILD, "too many kernels taken from %s", source);
    char *name = copy_string(kernel);
    if (!name)
        return oclconv__fail(ctx, OCLCONV_E_NOMEM, "out of memory for a kernel");
    cl_int err;
    cl_kernel k = clCreateKernel(e->program, kernel, &err);
    if (err != CL_SUCCESS) {
        free(name);
        return oclconv__cl_fail(ctx, err, "clCreateKernel");
    }
    e->kernels[e->kernel_count].name = name;
    e->kernels[e->kernel_count].kernel = k;
    e->kernel_count++;
    *out = k;
    return OCLCONV_OK;
}

oclconv_status oclconv__pass_kernels(oclconv_context *ctx, const char *source, const char *options,
                                     int fused, cl_kernel k[2])
{
    char name[64];
    int family = (int)strcspn(source, " "); /* the kernels' prefix: the first file's name */
    k[0] = k[1] = NULL;
    snprintf(name, sizeof name, "%.*s_%s", family, source,
             fused == OCLCONV_FUSED_TILES   ? "tile"
             : fused == OCLCONV_FUSED_QUADS ? "quads"
             : fused                        ? "fused"
                                            : "rows");
    oclconv_status s = oclconv__get_kernel(ctx, source, name, options, &k[0]);
    if (s == OCLCONV_OK && !fused) {
        snprintf(name, sizeof name, "%.*s_cols", family, source);
        s = oclconv__get_kernel(ctx, source, name, options, &k[1]);
    }
    return s;
}

/* ====== The build options every kernel shares =========================== */

static int type_id(oclconv_type t)
{
    return t == OCLCONV_U8 ? 0 : t == OCLCONV_U16 ? 1 : 2;
}

/* Whether kernels may round and saturate to an integer type with the
 * built-in conversion (cl/common.cl): on GPUs, where no sum can be NaN.
 * Weights, scale, delta and the border value are finite, so only a NaN
 * source value or NORMALIZE's rescale (0 * an overflowed ratio) makes one
 * (NVIDIA, 8K and 4K, 8-bit NORMALIZE Gaussians in tiles with it: RGBA8 r3
 * 1.07-1.11x, r7 1.02-1.07x, u8 gray r3-r7 1.0-1.08x). */
static int sat_convert(const oclconv__job *job)
{
    const oclconv_filter *f = job->filter;
    /* A box's rescale is at most its number of taps, any in double is
     * finite, and in float one of weights that cannot cancel, where
     * oclconv__float_rescale_finite() says so. */
    int finite = job->method == OCLCONV_METHOD_BOX || job->acc_double ||
                 (!f->has_negative && oclconv__float_rescale_finite(f));
    return !job->cpu_shapes && job->src->type != OCLCONV_F32 &&
           (job->opt.border != OCLCONV_BORDER_NORMALIZE || finite);
}

/* Whether one reflection or wrap settles every tap, so that kernels go
 * without border_index()'s modulo (cl/common.cl): the filter reaches at
 * most the image's size past its edges, one less for REFLECT101, which
 * folds about the edge pixel.  Set for those borders only, so that the
 * others build one program whatever the image's size; and in GPU shapes
 * only, where the modulo's presence slowed the tiles: a CPU's kernels
 * take border_index() near the edges alone, and there one program serves
 * images of every size (PoCL on 2 cores, 4K, REFLECT, REFLECT101 and WRAP
 * with and without: no difference past the runs' spread; docs/performance.md). */
static int one_fold(const oclconv__job *job)
{
    oclconv_border b = job->opt.border;
    int edge = b == OCLCONV_BORDER_REFLECT101;
    return !job->cpu_shapes &&
           (b == OCLCONV_BORDER_REFLECT || b == OCLCONV_BORDER_REFLECT101 ||
            b == OCLCONV_BORDER_WRAP) &&
           job->filter->width / 2 <= job->src->width - edge &&
           job->filter->height / 2 <= job->src->height - edge;
}

int oclconv__fold(const oclconv_context *ctx, const oclconv__job *job)
{
    oclconv_border b = job->opt.border;
    return job->cpu_shapes && (ctx->facts.type & CL_DEVICE_TYPE_CPU) &&
                   (b == OCLCONV_BORDER_CLAMP || b == OCLCONV_BORDER_REFLECT ||
                    b == OCLCONV_BORDER_REFLECT101 || b == OCLCONV_BORDER_WRAP)
               ? (int)b
               : -1;
}

/* The build options every kernel shares.  -w: a device compiler's warnings
 * (PoCL's on vectors wider than the CPU's registers, on loops it does not
 * unroll) would go to the application's standard error; a failed build's
 * log still comes back in the error message.  The radii are the kernels'
 * arguments rx and ry where job->radius_args (cl/box.cl's RADII). */
void oclconv__common_options(oclconv_context *ctx, const oclconv__job *job, char *buf, size_t size)
{
    size_t weight_bytes = (size_t)job->filter->width * (size_t)job->filter->height *
                          (job->acc_double ? sizeof(double) : sizeof(float));
    char radii[64] = "-DRX=rx -DRY=ry -DRADIUS_ARGS=1";
    if (!job->radius_args)
        snprintf(radii, sizeof radii, "-DRX=%d -DRY=%d", job->filter->width / 2,
                 job->filter->height / 2);
    snprintf(buf, size,
             "-DSRC_TYPE=%d -DDST_TYPE=%d -DCN=%d -DBORDER=%d %s -DACC_DOUBLE=%d "
             "-DWEIGHTS_GLOBAL=%d -DVEC=%d -DROW_WINDOW=%d -DSAT_CONVERT=%d -DTAPS_BY_VALUE=%d "
             "-DONE_FOLD=%d -w",
             type_id(job->src->type), type_id(job->dst->type), job->src->channels,
             oclconv__fold(ctx, job) >= 0 ? OCLCONV_BORDER_FOLDS : (int)job->opt.border, radii,
             job->acc_double,
             weight_bytes > ctx->facts.max_constant, job->vec,
             job->cpu_shapes ? 0 : OCLCONV_ROW_WINDOW, sat_convert(job), job->taps_by_value,
             one_fold(job));
}
