/*
 * Device selection: lists every device of every platform in one numbering and
 * matches the OCLCONV_DEVICE grammar (see oclconv_create() in the header).
 */
#include "internal.h"

#include <ctype.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    cl_platform_id platform;
    cl_device_id device;
    cl_device_type type;
    char platform_name[128];
    char platform_vendor[128]; /* "The pocl project", "NVIDIA Corporation" */
    char device_name[128];
} device_entry;

/* Some runtimes set up their devices on the first query and report none to
 * a thread that asks while another is doing so (PoCL does): listings are
 * taken one at a time. */
static pthread_mutex_t enumerate_lock = PTHREAD_MUTEX_INITIALIZER;

static oclconv_status enumerate_locked(device_entry **out, size_t *count);

/* Every device, platform by platform.  *out is malloc'ed (NULL when none). */
static oclconv_status enumerate(device_entry **out, size_t *count)
{
    pthread_mutex_lock(&enumerate_lock);
    oclconv_status s = enumerate_locked(out, count);
    pthread_mutex_unlock(&enumerate_lock);
    return s;
}

/* The ICD loader found no platform: either no driver is installed, or
 * those installed failed to load (a driver and its compiler need hundreds
 * of MiB of address space: under `ulimit -v` it fails to map them). */
static oclconv_status no_platform(void)
{
    const char *dir = getenv("OCL_ICD_VENDORS");
    if (!dir || !*dir)
        dir = "/etc/OpenCL/vendors";
    size_t drivers = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        drivers += n > 4 && strcmp(e->d_name + n - 4, ".icd") == 0;
    }
    if (d)
        closedir(d);
    if (!drivers)
        return oclconv__fail(NULL, OCLCONV_E_NO_DEVICE,
                             "no OpenCL platform found (install an OpenCL driver, "
                             "e.g. pocl-opencl-icd, and check %s)", dir);
    char limit[128];
    oclconv__memory_limit(limit, sizeof limit);
    return oclconv__fail(NULL, OCLCONV_E_NO_DEVICE,
                         "no OpenCL platform found: %zu driver%s listed in %s, but none could "
                         "be loaded%s", drivers, drivers == 1 ? " is" : "s are", dir,
                         *limit ? limit : "");
}

static oclconv_status enumerate_locked(device_entry **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &np);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && np == 0))
        return no_platform();
    if (err != CL_SUCCESS)
        return oclconv__cl_fail(NULL, err, "clGetPlatformIDs");
    cl_platform_id *platforms = calloc(np, sizeof *platforms);
    if (!platforms)
        return oclconv__fail(NULL, OCLCONV_E_NOMEM, "out of memory listing platforms");
    oclconv_status s = OCLCONV_OK;
    err = clGetPlatformIDs(np, platforms, NULL);
    if (err != CL_SUCCESS)
        s = oclconv__cl_fail(NULL, err, "clGetPlatformIDs");
    for (cl_uint p = 0; s == OCLCONV_OK && p < np; p++) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || !nd)
            continue; /* a platform without devices is not an error */
        cl_device_id *ids = calloc(nd, sizeof *ids);
        device_entry *grown = realloc(*out, (*count + nd) * sizeof **out);
        if (!ids || !grown) {
            free(ids);
            if (grown)
                *out = grown;
            s = oclconv__fail(NULL, OCLCONV_E_NOMEM, "out of memory listing devices");
            break;
        }
        *out = grown;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, nd, ids, NULL) == CL_SUCCESS) {
            for (cl_uint d = 0; d < nd; d++) {
                device_entry *e = &(*out)[(*count)++];
                memset(e, 0, sizeof *e);
                e->platform = platforms[p];
                e->device = ids[d];
                clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof e->platform_name - 1,
                                  e->platform_name, NULL);
                clGetPlatformInfo(platforms[p], CL_PLATFORM_VENDOR, sizeof e->platform_vendor - 1,
                                  e->platform_vendor, NULL);
                clGetDeviceInfo(ids[d], CL_DEVICE_NAME, sizeof e->device_name - 1,
                                e->device_name, NULL);
                clGetDeviceInfo(ids[d], CL_DEVICE_TYPE, sizeof e->type, &e->type, NULL);
            }
        }
        free(ids);
    }
    free(platforms);
    if (s == OCLCONV_OK && *count == 0)
        s = oclconv__fail(NULL, OCLCONV_E_NO_DEVICE, "OpenCL platforms exist but report no device");
    if (s != OCLCONV_OK) {
        free(*out);
        *out = NULL;
        *count = 0;
    }
    return s;
}

static const char *type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU)
        return "GPU";
    if (t & CL_DEVICE_TYPE_CPU)
        return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR)
        return "ACCELERATOR";
    return "OTHER";
}

static void list_into(const device_entry *e, size_t n, char *buf, size_t size)
{
    size_t at = 0;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < n && at < size; i++) {
        int w = snprintf(buf + at, size - at, "%zu: %s [%s] on %s\n", i, e[i].device_name,
                         type_name(e[i].type), e[i].platform_name);
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

oclconv_status oclconv_list_devices(char *buf, size_t size)
{
    if (!buf || !size)
        return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG, "oclconv_list_devices: no buffer");
    device_entry *e;
    size_t n;
    oclconv_status s = enumerate(&e, &n);
    buf[0] = '\0';
    if (s == OCLCONV_OK)
        list_into(e, n, buf, size);
    free(e);
    return s;
}

/* Case-insensitive substring test; an empty needle matches everything. */
static int contains(const char *hay, const char *needle, size_t needle_len)
{
    size_t hl = strlen(hay);
    for (size_t i = 0; i + needle_len <= hl; i++) {
        size_t k = 0;
        while (k < needle_len &&
               tolower((unsigned char)hay[i + k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == needle_len)
            return 1;
    }
    return 0;
}

static int equals_nocase(const char *a, size_t alen, const char *b)
{
    return alen == strlen(b) && contains(b, a, alen);
}

/* A whole string of decimal digits, as a non-negative index; -1 otherwise. */
static long parse_index(const char *s, size_t len)
{
    if (len == 0 || len > 9)
        return -1;
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* Type filter from a word: 0 = any, (cl_device_type)-1 = not a type word. */
static cl_device_type parse_type(const char *s, size_t len)
{
    if (len == 0)
        return 0;
    if (equals_nocase(s, len, "gpu"))
        return CL_DEVICE_TYPE_GPU;
    if (equals_nocase(s, len, "cpu"))
        return CL_DEVICE_TYPE_CPU;
    if (equals_nocase(s, len, "accelerator"))
        return CL_DEVICE_TYPE_ACCELERATOR;
    return (cl_device_type)-1;
}

/* Index into e of the device the spec names, or -1.  *bad_type is set when
 * the spec has a type field that is no type. */
static long match(const device_entry *e, size_t n, const char *spec, int *bad_type)
{
    size_t len = strlen(spec);
    *bad_type = 0;
    if (len == 0) { /* the default: first GPU, else first device */
        for (size_t i = 0; i < n; i++)
            if (e[i].type & CL_DEVICE_TYPE_GPU)
                return (long)i;
        return n ? 0 : -1;
    }
    const char *colon = strchr(spec, ':');
    if (!colon) {
        cl_device_type t = parse_type(spec, len);
        long index = parse_index(spec, len);
        for (size_t i = 0; i < n; i++) {
            if (t != (cl_device_type)-1 ? (e[i].type & t) != 0
                : index >= 0            ? (long)i == index
                                        : contains(e[i].device_name, spec, len) ||
                                   contains(e[i].platform_name, spec, len) ||
                                   contains(e[i].platform_vendor, spec, len))
                return (long)i;
        }
        return -1;
    }
    /* platform:type:device */
    const char *plat = spec, *type = colon + 1;
    size_t plat_len = (size_t)(colon - spec);
    const char *colon2 = strchr(type, ':');
    size_t type_len = colon2 ? (size_t)(colon2 - type) : strlen(type);
    const char *dev = colon2 ? colon2 + 1 : "";
    size_t dev_len = strlen(dev);
    cl_device_type t = parse_type(type, type_len);
    if (t == (cl_device_type)-1) {
        *bad_type = 1;
        return -1;
    }
    long index = parse_index(dev, dev_len), seen = 0;
    for (size_t i = 0; i < n; i++) {
        if ((!contains(e[i].platform_name, plat, plat_len) &&
             !contains(e[i].platform_vendor, plat, plat_len)) ||
            (t && !(e[i].type & t)))
            continue;
        if (index >= 0 ? seen++ == index : contains(e[i].device_name, dev, dev_len))
            return (long)i;
    }
    return -1;
}

/* The devices a spec of several names (see oclconv_create()): "*" every
 * device, "gpu*" (cpu*, accelerator*) every one of a type, or specs apart
 * by commas.  Sets *count; 0 with OK for a spec of one device. */
static oclconv_status match_several(const device_entry *e, size_t n, const char *spec, long *at,
                                    int most, int *count, int *bad_type)
{
    size_t len = strlen(spec);
    *count = 0;
    *bad_type = 0;
    if (len && spec[len - 1] == '*' && !strchr(spec, ',')) {
        cl_device_type t = len == 1 ? CL_DEVICE_TYPE_ALL : parse_type(spec, len - 1);
        if (t == (cl_device_type)-1)
            return OCLCONV_OK; /* a name ending in '*': one device */
        for (size_t i = 0; i < n && *count < most; i++)
            if (e[i].type & t)
                at[(*count)++] = (long)i;
        if (!*count)
            at[(*count)++] = -1;
        return OCLCONV_OK;
    }
    if (!strchr(spec, ','))
        return OCLCONV_OK;
    for (const char *p = spec; *count < most; p++) {
        const char *end = strchr(p, ',');
        size_t plen = end ? (size_t)(end - p) : strlen(p);
        char one[256];
        if (plen == 0 || plen >= sizeof one)
            return oclconv__fail(NULL, OCLCONV_E_NO_DEVICE,
                                 "device spec \"%s\": an empty or overlong name in the list", spec);
        memcpy(one, p, plen);
        one[plen] = '\0';
        long i = match(e, n, one, bad_type);
        for (int k = 0; i >= 0 && k < *count; k++)
            if (at[k] == i)
                return oclconv__fail(NULL, OCLCONV_E_INVALID_ARG,
                                     "device spec \"%s\" names device %ld twice", spec, i);
        at[(*count)++] = i;
        if (i < 0 || !end)
            break;
        p = end;
    }
    return OCLCONV_OK;
}

oclconv_status oclconv__find_devices(const char *spec, cl_platform_id *platforms,
                                     cl_device_id *devices, int most, int *count)
{
    device_entry *e;
    size_t n;
    oclconv_status s = enumerate(&e, &n);
    if (s != OCLCONV_OK)
        return s;
    spec = spec ? spec : "";
    long at[OCLCONV_MAX_DEVICES];
    int bad_type, found;
    most = most < OCLCONV_MAX_DEVICES ? most : OCLCONV_MAX_DEVICES;
    s = match_several(e, n, spec, at, most, &found, &bad_type);
    if (s == OCLCONV_OK && !found) {
        at[0] = match(e, n, spec, &bad_type);
        found = 1;
    }
    for (int k = 0; s == OCLCONV_OK && k < found; k++) {
        if (at[k] < 0) {
            char listing[2048];
            list_into(e, n, listing, sizeof listing);
            s = oclconv__fail(NULL, OCLCONV_E_NO_DEVICE,
                              "device spec \"%s\" matches no OpenCL device%s; the devices are:\n%s",
                              spec, bad_type ? " (type must be GPU, CPU, ACCELERATOR or empty)" : "",
                              listing);
        } else {
            platforms[k] = e[at[k]].platform;
            devices[k] = e[at[k]].device;
        }
    }
    *count = s == OCLCONV_OK ? found : 0;
    free(e);
    return s;
}
