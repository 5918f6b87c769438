#define _XOPEN_SOURCE 700 /* realpath */

#include "output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
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

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* Of those, the ones whose handler removes the temporary file, and the ones
 * the command inherited ignored.  An ignored signal stays ignored: nohup
 * ignores SIGHUP, and a shell SIGINT for a command run in the background,
 * so that the command outlives what sends them.  It is also kept blocked:
 * an OpenCL compiler running in the process (PoCL's clang) installs
 * handlers of its own for these signals, over SIG_IGN, that delete the
 * compiler's temporary files, so that one arriving mid-build would fail
 * the build; blocked, it never arrives. */
static sigset_t handled, ignored;

static void on_signal(int sig)
{
    if (temp_active)
        unlink(temp_path);
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns: die of the same signal */
}

static void install_signal_handlers(void)
{
    struct sigaction sa, old;
    sigemptyset(&handled);
    sigemptyset(&ignored);
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++) {
        const int sig = cleanup_signals[i];
        if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            sigaddset(&ignored, sig);
        else
            sigaddset(&handled, sig);
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_mask = handled;
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++)
        if (sigismember(&handled, cleanup_signals[i]))
            sigaction(cleanup_signals[i], &sa, NULL);
    /* Before the OpenCL runtime starts its threads, which inherit the mask. */
    sigprocmask(SIG_BLOCK, &ignored, NULL);
}

/* Blocks the handled signals in this thread, *old its mask before: a
 * thread that keeps them blocked (the writer's) keeps them so. */
static void block_signals(sigset_t *old)
{
    pthread_sigmask(SIG_BLOCK, &handled, old);
}

static void restore_signals(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

void output_file_helper_thread(void)
{
    sigset_t mine;
    sigemptyset(&mine);
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++)
        sigaddset(&mine, cleanup_signals[i]);
    pthread_sigmask(SIG_BLOCK, &mine, NULL);
}

static void remove_temp(void)
{
    sigset_t old;
    block_signals(&old);
    if (temp_active)
        unlink(temp_path);
    temp_active = 0;
    restore_signals(&old);
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
static image_io_settings settings;

void output_file_init(const image_io_settings *set)
{
    settings = *set;
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

/* Writes pic to fp as `format` and closes it. */
static int write_stream(FILE *fp, image_io_format format, const png_io_picture *pic, char *why,
                        size_t why_size)
{
    int rc = image_io_write(fp, format, pic, &settings, why, why_size);
    if (fclose(fp) != 0 && rc == 0)
        rc = say(why, why_size, "write error: %s", strerror(errno));
    return rc;
}

/* A character device or a FIFO has no contents to replace and keeps no
 * half-written file: it is written into, as a shell's '>' or cp(1) does.
 * Opening a FIFO waits for its reader. */
static int write_into(const char *out, const png_io_picture *pic, char *why, size_t why_size)
{
    const image_io_format format = image_io_format_of_name(out);
    int fd = open(out, O_WRONLY | O_NOCTTY);
    FILE *fp;
    if (fd < 0)
        return say(why, why_size, "%s", strerror(errno));
    if (isatty(fd)) {
        close(fd);
        return say(why, why_size, "a terminal: %s data is not written to terminals",
                   image_io_format_names[format]);
    }
    fp = fdopen(fd, "wb");
    if (!fp) {
        close(fd);
        return say(why, why_size, "%s", strerror(errno));
    }
    return write_stream(fp, format, pic, why, why_size);
}

static int write_stdout(const png_io_picture *pic, char *why, size_t why_size)
{
    if (isatty(STDOUT_FILENO))
        return say(why, why_size, "standard output is a terminal: redirect it or name a file");
    return image_io_write(stdout, IMAGE_IO_PNG, pic, &settings, why, why_size);
}

/* The new file takes the old one's permissions, and its owner and group
 * where this process may give them; where it may not, the file is this
 * process's, so set-user and set-group bits are dropped, and the group
 * bits too unless the group could be kept: the copy is never open to
 * anyone the old file was not. */
static void keep_owner_and_mode(int fd, const struct stat *old)
{
    mode_t mode = old->st_mode & 07777;
    if (fchown(fd, old->st_uid, old->st_gid) != 0) {
        mode &= ~(mode_t)(S_ISUID | S_ISGID);
        if (fchown(fd, (uid_t)-1, old->st_gid) != 0)
            mode &= ~(mode_t)S_IRWXG;
    }
    fchmod(fd, mode);
}

/* The temporary file's path in temp_path: ".NAME.XXXXXX" beside the
 * target, NAME cut short where the whole would pass the folder's limit on
 * a name (NAME_MAX), so that any name the folder takes can be written.
 * mkstemp() makes it unique either way.  @return 0, or -1 when the path
 * does not fit. */
static int temp_name(const char *target, const char *base, size_t dir_len)
{
    size_t keep = strlen(base);
    long name_max;
    if (snprintf(temp_path, sizeof temp_path, "%.*s", dir_len ? (int)dir_len : 1,
                 dir_len ? target : ".") >= (int)sizeof temp_path)
        return -1;
    name_max = pathconf(temp_path, _PC_NAME_MAX);
    if (name_max <= 0)
        name_max = NAME_MAX;
    if (keep + 8 > (size_t)name_max)
        keep = name_max > 8 ? (size_t)name_max - 8 : 0;
    return snprintf(temp_path, sizeof temp_path, "%.*s.%.*s.XXXXXX", (int)dir_len, target,
                    (int)keep, base) >= (int)sizeof temp_path
               ? -1
               : 0;
}

/* Writes a temporary file beside `target` and renames it over the target;
 * `old` is the target's status, NULL when there is none.  The format is
 * that of `named`, the name given (a link's, not its target's). */
static int replace_file(const char *target, const char *named, const struct stat *old,
                        const png_io_picture *pic, char *why, size_t why_size)
{
    const char *base = output_base_name(target);
    size_t dir_len = (size_t)(base - target);
    FILE *fp;
    int fd, rc;
    sigset_t mask;

    if (!*base)
        return say(why, why_size, "not a file name");
    if (temp_name(target, base, dir_len))
        return say(why, why_size, "path too long");

    block_signals(&mask);
    fd = mkstemp(temp_path);
    temp_active = fd >= 0;
    restore_signals(&mask);
    if (fd < 0)
        return say(why, why_size, "cannot create a file in '%.*s': %s",
                   dir_len ? (int)dir_len : 1, dir_len ? target : ".", strerror(errno));

    if (old)
        keep_owner_and_mode(fd, old);
    else
        fchmod(fd, file_mode);
    fp = fdopen(fd, "wb");
    if (!fp) {
        rc = say(why, why_size, "%s", strerror(errno));
        close(fd);
    } else {
        rc = write_stream(fp, image_io_format_of_name(named), pic, why, why_size);
    }
    if (rc == 0) {
        block_signals(&mask);
        if (rename(temp_path, target) == 0)
            temp_active = 0;
        else
            rc = say(why, why_size, "cannot rename the temporary file: %s", strerror(errno));
        restore_signals(&mask);
    }
    if (rc)
        remove_temp();
    return rc;
}

int output_file_write(const char *out, const png_io_picture *pic, char *why, size_t why_size)
{
    struct stat st;
    if (strcmp(out, "-") == 0)
        return write_stdout(pic, why, why_size);
    if (lstat(out, &st) != 0) {
        if (errno != ENOENT)
            return say(why, why_size, "%s", strerror(errno));
        return replace_file(out, out, NULL, pic, why, why_size);
    }
    const int is_link = S_ISLNK(st.st_mode);
    if (is_link && stat(out, &st) != 0) {
        if (errno == ENOENT)
            return say(why, why_size, "a symbolic link to a missing file");
        return say(why, why_size, "%s", strerror(errno));
    }
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
        return write_into(out, pic, why, why_size);
    if (S_ISDIR(st.st_mode))
        return say(why, why_size, "%s", strerror(EISDIR));
    if (!S_ISREG(st.st_mode))
        return say(why, why_size, "not a regular file, a character device or a FIFO");
    if (!is_link)
        return replace_file(out, out, &st, pic, why, why_size);

    /* A symbolic link is followed: the file it names is replaced, in its
     * own folder, and the link stays. */
    char *target = realpath(out, NULL);
    if (!target)
        return say(why, why_size, "%s", strerror(errno));
    int rc = replace_file(target, out, &st, pic, why, why_size);
    free(target);
    return rc;
}
