/*
 * Running the oclconv command from the tests, and the scratch files around
 * it.  See cli_harness.h.
 */
#include "cli_harness.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

char cli_path[1024];
char tmp[1024];
char cli_out[1 << 16], cli_err[1 << 16];

/* ====== Files and processes ========================================== */

/* A path under the scratch folder, in one of 32 rotating buffers: enough
 * for the arguments of one command. */
const char *at(const char *fmt, ...)
{
    static char bufs[32][1200];
    static int next;
    char *b = bufs[next++ % 32];
    int n = snprintf(b, sizeof bufs[0], "%s/", tmp);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b + n, sizeof bufs[0] - (size_t)n, fmt, ap);
    va_end(ap);
    return b;
}

_Noreturn void hard_error(const char *what, const char *path)
{
    fprintf(stderr, "%s: %s: %s\n", what, path, strerror(errno));
    exit(TEST_HARD_ERROR);
}

void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        chmod(path, 0755);
        while (d && (e = readdir(d)) != NULL) {
            char sub[1200];
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            remove_tree(sub);
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

void make_dir(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        hard_error("mkdir", path);
}

/* Names in a folder; *hidden counts those starting with '.' (temporary
 * files the command failed to remove). */
int count_entries(const char *dir, int *hidden)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    *hidden = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        if (e->d_name[0] == '.')
            (*hidden)++;
    }
    closedir(d);
    return n;
}

int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

unsigned char *read_all(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    unsigned char *buf;
    long n;
    if (!fp || fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET))
        hard_error("read", path);
    buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, fp) != (size_t)n)
        hard_error("read", path);
    fclose(fp);
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

void write_all(const char *path, const void *data, size_t len)
{
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(data, 1, len, fp) != len || fclose(fp) != 0)
        hard_error("write", path);
}

static void slurp(const char *path, char *buf, size_t size)
{
    FILE *fp = fopen(path, "rb");
    size_t n = fp ? fread(buf, 1, size - 1, fp) : 0;
    buf[n] = '\0';
    if (fp)
        fclose(fp);
}

const char *cli_stdin;

/* Forks and executes the command: stdout to `out_path`, stderr to
 * `err_path` or, when that is NULL, to the descriptor err_fd; standard
 * input from cli_stdin when set; `ignored` (when not 0) set to SIG_IGN as
 * nohup does. */
static pid_t spawn(int n, const char *const *args, const char *out_path, const char *err_path,
                   int err_fd, int ignored)
{
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    pid_t pid;

    argv[argc++] = strdup(cli_path);
    for (int i = 0; i < n && i < MAX_ARGS; i++)
        argv[argc++] = strdup(args[i]);
    argv[argc] = NULL;
    fflush(NULL);
    pid = fork();
    if (pid < 0)
        hard_error("fork", cli_path);
    if (pid == 0) {
        if (!freopen(out_path, "w", stdout) ||
            (err_path ? !freopen(err_path, "w", stderr) : dup2(err_fd, STDERR_FILENO) < 0) ||
            (cli_stdin && !freopen(cli_stdin, "r", stdin)))
            _exit(126);
        /* The command's signals as a shell gives them, whatever this
         * process inherited: default and unblocked, but `ignored`. */
        signal(SIGHUP, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (ignored)
            signal(ignored, SIG_IGN);
        execv(argv[0], argv);
        _exit(127);
    }
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    return pid;
}

int cli_wait(pid_t pid)
{
    int status;
    if (waitpid(pid, &status, 0) < 0)
        hard_error("waitpid", cli_path);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

int cli_argv(int n, const char *const *args)
{
    char out_path[1200], err_path[1200];
    /* Copied first: args may be at() buffers. */
    snprintf(out_path, sizeof out_path, "%s", at("stdout.txt"));
    snprintf(err_path, sizeof err_path, "%s", at("stderr.txt"));
    int rc = cli_wait(spawn(n, args, out_path, err_path, -1, 0));
    slurp(out_path, cli_out, sizeof cli_out);
    slurp(err_path, cli_err, sizeof cli_err);
    return rc;
}

pid_t cli_start(int n, const char *const *args, int ignored, int *err_fd)
{
    int fds[2];
    char out_path[1200];
    snprintf(out_path, sizeof out_path, "%s", at("stdout.txt"));
    if (pipe(fds) != 0)
        hard_error("pipe", cli_path);
    pid_t pid = spawn(n, args, out_path, NULL, fds[1], ignored);
    close(fds[1]);
    *err_fd = fds[0];
    return pid;
}

/* cli_argv() with the arguments listed, NULL last. */
int cli(const char *first, ...)
{
    const char *args[MAX_ARGS];
    int n = 0;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && n < MAX_ARGS; a = va_arg(ap, const char *))
        args[n++] = a;
    va_end(ap);
    return cli_argv(n, args);
}

/* The command's own lines on stderr: progress ("[i/n] ...") and messages
 * ("oclconv: ...").  The OpenCL runtime may print lines of its own there
 * (PoCL compiling under a sanitizer, say); they are not the command's. */
int count_lines(const char *s)
{
    int n = 0;
    for (const char *line = s; *line; ) {
        const char *end = strchr(line, '\n');
        if (line[0] == '[' || strncmp(line, "oclconv", 7) == 0)
            n++;
        else
            fprintf(stderr, "(not the command's: %.*s)\n", (int)(end ? end - line : (long)strlen(line)), line);
        if (!end)
            break;
        line = end + 1;
    }
    return n;
}


int cli_harness_init(const char *scratch)
{
    const char *env_cli = getenv("OCLCONV_CLI");
    struct stat st;

    snprintf(cli_path, sizeof cli_path, "%s", env_cli && *env_cli ? env_cli : "");
    if (!*cli_path)
        snprintf(cli_path, sizeof cli_path, "%s/oclconv", test_build_dir());
    if (stat(cli_path, &st) != 0 || access(cli_path, X_OK) != 0) {
        fprintf(stderr, "the command %s is missing: build it first (make)\n", cli_path);
        return TEST_HARD_ERROR;
    }
    unoptimised_kernels(); /* the command's children inherit it */
    oclconv_destroy(test_context()); /* a device is there */

    if (test_scratch_dir(scratch, tmp, sizeof tmp) != 0)
        hard_error("cannot make the scratch folder", scratch);
    remove_tree(tmp);
    make_dir(tmp);
    return 0;
}
