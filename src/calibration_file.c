/* AUTO's calibration file (src/calibrate.c measures what it holds): a
 * device's measured paths, a line a class, in a file named by the hash of
 * what the measurements belong to.  A file that is not whole and well
 * formed, or another device's, adds nothing; a write merges what other
 * processes stored meanwhile and renames a whole new file over the old. */
#include "internal.h"
#include "calibration.h"
#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_MAX (1 << 20)
typedef oclconv__calibration_entry entry;

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return (h ^ '\n') * 1099511628211u;
}

static void device_text(const oclconv_context *ctx, cl_device_info what, char *buf, size_t size)
{
    buf[0] = 0;
    clGetDeviceInfo(ctx->device, what, size - 1, buf, NULL);
    buf[size - 1] = 0;
    for (char *c = buf; *c; c++) /* one line in the file's comment */
        if ((unsigned char)*c < ' ')
            *c = ' ';
}

/* What the measurements belong to: the platform, device and driver, the
 * library's version and its kernels.  Its hash names the file. */
uint64_t oclconv__calibration_identity(const oclconv_context *ctx, char *text, size_t size)
{
    char dev[256], ver[256], drv[256], plat[256] = "";
    device_text(ctx, CL_DEVICE_NAME, dev, sizeof dev);
    device_text(ctx, CL_DEVICE_VERSION, ver, sizeof ver);
    device_text(ctx, CL_DRIVER_VERSION, drv, sizeof drv);
    cl_platform_id p = NULL;
    clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof p, &p, NULL);
    if (p)
        clGetPlatformInfo(p, CL_PLATFORM_VERSION, sizeof plat - 1, plat, NULL);
    plat[sizeof plat - 1] = 0;
    snprintf(text, size, "%s / %s / %s / driver %s / oclconv %d / classes %d", dev, ver, plat,
             drv, oclconv_version_number(), OCLCONV_CALIBRATION_CLASSES);
    uint64_t h = fnv(14695981039346656037u, text);
    for (const oclconv__cl_source *s = oclconv__cl_sources; s->name; s++)
        h = fnv(fnv(h, s->name), s->text);
    return h;
}

/* The folder: the context's, else OCLCONV_CALIBRATION_DIR, else
 * $XDG_CACHE_HOME/oclconv, else $HOME/.cache/oclconv; 0 when none. */
int oclconv__calibration_path(const oclconv_context *ctx, uint64_t id, char *path, size_t size)
{
    const char *dir = ctx->calib_dir ? ctx->calib_dir : getenv("OCLCONV_CALIBRATION_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME"), *under = "";
    if (!dir || !*dir) {
        int cache = xdg && *xdg == '/';
        if (!cache && (!home || !*home))
            return 0;
        dir = cache ? xdg : home;
        under = cache ? "/oclconv" : "/.cache/oclconv";
    }
    int n = snprintf(path, size, "%s%s/calibration-%016llx.tsv", dir, under,
                     (unsigned long long)id);
    return n > 0 && (size_t)n < size;
}

entry *oclconv__calibration_find(struct oclconv__calibration *c, const char *key)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->e[i].key, key) == 0)
            return &c->e[i];
    return NULL;
}

entry *oclconv__calibration_add(struct oclconv__calibration *c, const char *key)
{
    entry *e = oclconv__calibration_find(c, key);
    if (e)
        return e;
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 16;
        entry *grown = realloc(c->e, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        c->e = grown;
        c->cap = cap;
    }
    e = &c->e[c->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->key, sizeof e->key, "%s", key);
    return e;
}

static int key_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || strchr("/-.", c);
}

/* One entry line: key, tab, the name of a path AUTO may take (not the
 * image path), and a tab and detail or not. */
static int parse_entry(struct oclconv__calibration *c, char *line)
{
    char *tab = strchr(line, '\t');
    if (!tab || tab == line || tab - line >= OCLCONV_CALIBRATION_KEY_MAX)
        return 0;
    *tab = 0;
    for (char *k = line; *k; k++)
        if (!key_char(*k))
            return 0;
    char *name = tab + 1, *detail = strchr(name, '\t');
    if (detail)
        *detail++ = 0;
    oclconv_method m;
    entry *e;
    if (!oclconv__parse_method(name, &m) || m == OCLCONV_METHOD_AUTO ||
        m == OCLCONV_METHOD_IMAGE || !(e = oclconv__calibration_add(c, line)))
        return 0;
    e->method = m;
    snprintf(e->detail, sizeof e->detail, "%s", detail ? detail : "");
    return 1;
}

/* Reads the file's entries into c where every line is well formed and its
 * id is this device's: a truncated, corrupt or foreign file adds nothing. */
void oclconv__calibration_read(struct oclconv__calibration *c, const char *path, uint64_t id)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    char *text = malloc(FILE_MAX + 1);
    size_t len = text ? fread(text, 1, FILE_MAX + 1, f) : 0;
    fclose(f);
    if (!text || len == 0 || len > FILE_MAX || memchr(text, 0, len) || text[len - 1] != '\n') {
        free(text);
        return;
    }
    text[len] = 0;
    struct oclconv__calibration got;
    memset(&got, 0, sizeof got);
    char want[32];
    snprintf(want, sizeof want, "id %016llx", (unsigned long long)id);
    int ok = 1, have_id = 0;
    for (char *line = text, *next; ok && *line; line = next) {
        next = strchr(line, '\n');
        *next++ = 0;
        if (line[0] == '#')
            continue;
        if (!have_id)
            ok = have_id = strcmp(line, want) == 0;
        else
            ok = parse_entry(&got, line);
    }
    for (int i = 0; ok && have_id && i < got.n; i++) {
        entry *e = oclconv__calibration_find(c, got.e[i].key);
        if (!e || !e->measured_here) {
            if (!(e = oclconv__calibration_add(c, got.e[i].key)))
                break;
            *e = got.e[i];
        }
    }
    free(got.e);
    free(text);
}

static void make_dirs(char *path)
{
    for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        mkdir(path, 0755);
        *s = '/';
    }
}

/* Writes every entry, merged with what other processes stored meanwhile,
 * through a temporary file renamed over the old: a reader sees the old
 * file or the new, whole.  A folder that cannot be written keeps the
 * measurements in the context only. */
void oclconv__calibration_write(struct oclconv__calibration *c, const char *path, uint64_t id,
                                const char *who)
{
    oclconv__calibration_read(c, path, id);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    make_dirs(tmp);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        return;
    }
    fprintf(f, "# oclconv: AUTO's measured paths on %s (any change to this file discards it)\n"
               "id %016llx\n", who, (unsigned long long)id);
    for (int i = 0; i < c->n; i++)
        fprintf(f, "%s\t%s\t%s\n", c->e[i].key, oclconv_method_name(c->e[i].method),
                c->e[i].detail);
    fchmod(fd, 0644);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        unlink(tmp);
}
