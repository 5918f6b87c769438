#include "output_file.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary file being written, for the signal handler to remove.  Both
 * change only while the handled signals are blocked. */
static char temp_path[4096];
static volatile sig_atomic_t temp_active;

static const int handled_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig)
{
    if (temp_active)
        unlink(temp_path);
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns: die of the same signal */
}

static void install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; i++)
        sigaddset(&sa.sa_mask, handled_signals[i]);
    for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; i++)
        sigaction(handled_signals[i], &sa, NULL);
}

static void block_signals(int block)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; i++)
        sigaddset(&set, handled_signals[i]);
    sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

static void remove_temp(void)
{
    block_signals(1);
    if (temp_active)
        unlink(temp_path);
    temp_active = 0;
    block_signals(0);
}

const char *output_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *output_join_path(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    const char *sep = n > 0 && dir[n - 1] != '/' ? "/" : "";
    char *p = malloc(n + strlen(sep) + strlen(name) + 1);
    if (p)
        sprintf(p, "%s%s%s", dir, sep, name);
    return p;
}

static mode_t file_mode; /* of new files: 0666 less the umask */

void output_file_init(void)
{
    mode_t mask = umask(0);
    umask(mask);
    file_mode = 0666 & ~mask;
    install_signal_handlers();
}

__attribute__((format(printf, 3, 4)))
static int say(char *why, size_t why_size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_size, fmt, ap);
    va_end(ap);
    return -1;
}

int output_file_write(const char *out, const png_io_picture *pic, char *why, size_t why_size)
{
    const char *base = output_base_name(out);
    size_t dir_len = (size_t)(base - out);
    FILE *fp;
    int fd, rc;

    if (!*base)
        return say(why, why_size, "not a file name");
    if (snprintf(temp_path, sizeof temp_path, "%.*s.%s.XXXXXX", (int)dir_len, out, base) >=
        (int)sizeof temp_path)
        return say(why, why_size, "path too long");

    block_signals(1);
    fd = mkstemp(temp_path);
    temp_active = fd >= 0;
    block_signals(0);
    if (fd < 0)
        return say(why, why_size, "cannot create a file in '%.*s': %s",
                   dir_len ? (int)dir_len : 1, dir_len ? out : ".", strerror(errno));

    fchmod(fd, file_mode);
    fp = fdopen(fd, "wb");
    if (!fp) {
        rc = say(why, why_size, "%s", strerror(errno));
        close(fd);
    } else {
        rc = png_io_write(fp, pic, why, why_size);
        if (fclose(fp) != 0 && rc == 0)
            rc = say(why, why_size, "write error: %s", strerror(errno));
    }
    if (rc == 0) {
        block_signals(1);
        if (rename(temp_path, out) == 0)
            temp_active = 0;
        else
            rc = say(why, why_size, "cannot rename the temporary file: %s", strerror(errno));
        block_signals(0);
    }
    if (rc)
        remove_temp();
    return rc;
}
