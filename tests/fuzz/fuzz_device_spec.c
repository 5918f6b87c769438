/*
 * Fuzz target: the device spec of oclconv_create() and OCLCONV_DEVICE
 * (src/device_spec.c).
 *
 * The matcher is static, so this file includes device_spec.c to reach it.
 * Each input, NUL-terminated, is a spec, and is matched three ways:
 *   1. against a made-up listing of seven devices on four platforms (no
 *      OpenCL involved), and compared with a second reading of the grammar
 *      written here from the header's description;
 *   2. against the same listing cut short, and against an empty one;
 *   3. through oclconv__find_devices(), which lists the real OpenCL devices
 *      (PoCL here) on every call: a spec of one device checked against the
 *      same second reading of the real listing taken once at start-up; a list
 *      or a "*" spec for devices of that listing, none twice.
 * The real listing leaks nothing of ours, but the OpenCL runtime keeps some
 * memory of its own: run with tests/lsan.supp.
 */
#include "../../src/device_spec.c"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAKE(plat, vendor, type, dev) \
    {(cl_platform_id)(uintptr_t)(plat), (cl_device_id)(uintptr_t)(__LINE__), (type), \
     vendor, vendor, dev}

/* Platform names double as vendors here; the second field is overwritten in
 * fake_listing() for the platforms whose vendor differs. */
static device_entry fake[] = {
    FAKE(1, "NVIDIA CUDA", CL_DEVICE_TYPE_GPU, "NVIDIA GeForce RTX 3080"),
    FAKE(1, "NVIDIA CUDA", CL_DEVICE_TYPE_GPU, "NVIDIA A100-SXM4-40GB"),
    FAKE(2, "Portable Computing Language", CL_DEVICE_TYPE_CPU, "pthread-skylake-avx512"),
    FAKE(3, "Intel(R) OpenCL", CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT, "Intel(R) Xeon(R) 0"),
    FAKE(3, "Intel(R) OpenCL", CL_DEVICE_TYPE_ACCELERATOR, "FPGA Emulator:1"),
    FAKE(4, "", CL_DEVICE_TYPE_CUSTOM, ""),
    FAKE(4, "", CL_DEVICE_TYPE_GPU, "gfx1030:xnack-"),
};
#define N_FAKE (sizeof fake / sizeof fake[0])

static device_entry *real;
static size_t n_real;

static void fake_listing(void)
{
    snprintf(fake[0].platform_vendor, sizeof fake[0].platform_vendor, "NVIDIA Corporation");
    snprintf(fake[1].platform_vendor, sizeof fake[1].platform_vendor, "NVIDIA Corporation");
    snprintf(fake[2].platform_vendor, sizeof fake[2].platform_vendor, "The pocl project");
    snprintf(fake[3].platform_vendor, sizeof fake[3].platform_vendor, "Intel(R) Corporation");
    snprintf(fake[4].platform_vendor, sizeof fake[4].platform_vendor, "Intel(R) Corporation");
    snprintf(fake[5].platform_vendor, sizeof fake[5].platform_vendor, "Advanced Micro Devices");
    snprintf(fake[6].platform_vendor, sizeof fake[6].platform_vendor, "Advanced Micro Devices");
}

/* ---- the grammar read a second time, from the header ------------------- */

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Does `hay` hold `n` bytes of `s`, ignoring ASCII case? */
static int has(const char *hay, const char *s, size_t n)
{
    if (n == 0)
        return 1;
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < n && hay[k] && lower((unsigned char)hay[k]) == lower((unsigned char)s[k]))
            k++;
        if (k == n)
            return 1;
    }
    return 0;
}

static int word_is(const char *s, size_t n, const char *w)
{
    if (n != strlen(w))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)s[i]) != w[i])
            return 0;
    return 1;
}

/* 0 = any, the type bit, or -1 = not a type */
static long long type_word(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    if (word_is(s, n, "gpu"))
        return CL_DEVICE_TYPE_GPU;
    if (word_is(s, n, "cpu"))
        return CL_DEVICE_TYPE_CPU;
    if (word_is(s, n, "accelerator"))
        return CL_DEVICE_TYPE_ACCELERATOR;
    return -1;
}

/* A decimal index of at most nine digits (the matcher's own bound), or -1. */
static long digits(const char *s, size_t n)
{
    if (n == 0 || n > 9)
        return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = 10 * v + (s[i] - '0');
    }
    return v;
}

static long expected(const device_entry *e, size_t n, const char *spec)
{
    size_t len = strlen(spec);
    if (len == 0) {
        for (size_t i = 0; i < n; i++)
            if (e[i].type & CL_DEVICE_TYPE_GPU)
                return (long)i;
        return n ? 0 : -1;
    }
    const char *c1 = memchr(spec, ':', len);
    if (!c1) {
        long long t = type_word(spec, len);
        long idx = digits(spec, len);
        for (size_t i = 0; i < n; i++) {
            if (t > 0) {
                if (e[i].type & (cl_device_type)t)
                    return (long)i;
            } else if (idx >= 0) {
                return idx < (long)n ? idx : -1;
            } else if (has(e[i].device_name, spec, len) || has(e[i].platform_name, spec, len) ||
                       has(e[i].platform_vendor, spec, len)) {
                return (long)i;
            }
        }
        return -1;
    }
    size_t plen = (size_t)(c1 - spec);
    const char *ty = c1 + 1;
    const char *c2 = strchr(ty, ':');
    size_t tlen = c2 ? (size_t)(c2 - ty) : strlen(ty);
    const char *dev = c2 ? c2 + 1 : "";
    long long t = type_word(ty, tlen);
    if (t < 0)
        return -1;
    long idx = digits(dev, strlen(dev)), seen = 0;
    for (size_t i = 0; i < n; i++) {
        int plat_ok = has(e[i].platform_name, spec, plen) || has(e[i].platform_vendor, spec, plen);
        int type_ok = t == 0 || (e[i].type & (cl_device_type)t);
        if (!plat_ok || !type_ok)
            continue;
        if (idx >= 0) {
            if (seen++ == idx)
                return (long)i;
        } else if (has(e[i].device_name, dev, strlen(dev))) {
            return (long)i;
        }
    }
    return -1;
}

/* ---- the target -------------------------------------------------------- */

static void check_match(const device_entry *e, size_t n, const char *spec)
{
    int bad_type = -1;
    long got = match(e, n, spec, &bad_type);
    long want = expected(e, n, spec);
    if (got != want || (bad_type != 0 && bad_type != 1) || (bad_type && got != -1)) {
        fprintf(stderr, "spec \"%s\" on %zu devices: matched %ld, expected %ld (bad_type %d)\n",
                spec, n, got, want, bad_type);
        __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        fake_listing();
        if (enumerate(&real, &n_real) != OCLCONV_OK) {
            real = NULL;
            n_real = 0;
        }
        ready = 1;
    }
    if (size > 4096)
        return 0; /* a spec is a short word; longer adds nothing but time */
    char *spec = malloc(size + 1);
    if (!spec)
        return 0;
    memcpy(spec, data, size);
    spec[size] = '\0';

    for (size_t n = 0; n <= N_FAKE; n++)
        check_match(fake, n, spec);

    if (n_real) {
        cl_platform_id platform[OCLCONV_MAX_DEVICES] = {0};
        cl_device_id device[OCLCONV_MAX_DEVICES] = {0};
        int count = 0;
        oclconv_status s =
            oclconv__find_devices(spec, platform, device, OCLCONV_MAX_DEVICES, &count);
        size_t len = strlen(spec);
        if (strchr(spec, ',') || (len && spec[len - 1] == '*')) {
            /* Several devices: each one of the real listing, none twice. */
            for (int k = 0; s == OCLCONV_OK && k < count; k++) {
                int known = 0;
                for (size_t i = 0; i < n_real; i++)
                    known |= real[i].device == device[k] && real[i].platform == platform[k];
                for (int j = 0; j < k; j++)
                    known &= device[j] != device[k];
                if (!known)
                    __builtin_trap();
            }
            if ((s == OCLCONV_OK) != (count > 0) ||
                (s != OCLCONV_OK && s != OCLCONV_E_NO_DEVICE && s != OCLCONV_E_INVALID_ARG))
                __builtin_trap(); /* INVALID_ARG: a device named twice */
        } else {
            long want = expected(real, n_real, spec);
            if (s == OCLCONV_OK) {
                if (count != 1 || want < 0 || real[want].device != device[0] ||
                    real[want].platform != platform[0])
                    __builtin_trap();
            } else if (s != OCLCONV_E_NO_DEVICE || want >= 0 ||
                       !strstr(oclconv_errmsg(NULL), "matches no OpenCL device")) {
                fprintf(stderr, "spec \"%s\": status %d, message %s\n", spec, (int)s,
                        oclconv_errmsg(NULL));
                __builtin_trap();
            }
        }
    }
    free(spec);
    return 0;
}
