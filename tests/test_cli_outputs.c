/*
 * The oclconv command end to end, where its outputs go: outputs that are
 * not regular files (devices, FIFOs, standard output, sockets), symbolic
 * and hard links, an input that is an earlier one's output, the permissions
 * and owner of a replaced file, long file names, and signals during a batch.
 */
#define _XOPEN_SOURCE 700 /* mknod, S_IFCHR */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_harness.h"
#include "test.h"

/* What the command writes for input(name) into a new regular file. */
static unsigned char *expected_png(const char *name, size_t *len)
{
    if (cli(input(name), at("expected-%s.png", name), (char *)NULL) != 0) {
        fprintf(stderr, "cannot make the expected output: %s", cli_err);
        exit(TEST_HARD_ERROR);
    }
    return read_all(at("expected-%s.png", name), len);
}

static int same_bytes(const char *path, const unsigned char *want, size_t want_len)
{
    size_t len;
    unsigned char *got = read_all(path, &len);
    int same = len == want_len && memcmp(got, want, len) == 0;
    free(got);
    return same;
}

static mode_t type_of(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? st.st_mode & S_IFMT : 0;
}

/* ====== Outputs that are not regular files =========================== */

/* A character device is written into, never replaced by a file. */
static void test_character_device(void)
{
    ASSERT(symlink("/dev/null", at("null-link.png")) == 0);
    ASSERT_EQ(cli(input("gray8"), at("null-link.png"), (char *)NULL), 0);
    ASSERT_EQ(type_of(at("null-link.png")), S_IFLNK);
    ASSERT_EQ(type_of("/dev/null"), S_IFCHR);

    /* A device node of its own, where this process may make one. */
    if (mknod(at("null"), S_IFCHR | 0666, makedev(1, 3)) == 0) {
        ASSERT_EQ(cli(input("gray8"), at("null"), (char *)NULL), 0);
        ASSERT_EQ(type_of(at("null")), S_IFCHR);
    } else if (geteuid() == 0) {
        TEST_FAIL_("mknod as root: %s", strerror(errno));
    }
}

/* A process that reads the FIFO `fifo` to its end into the file `copy`. */
static pid_t start_reader(const char *fifo, const char *copy)
{
    fflush(NULL);
    pid_t reader = fork();
    if (reader < 0)
        hard_error("fork", fifo);
    if (reader == 0) {
        int in = open(fifo, O_RDONLY), out = open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        char buf[4096];
        ssize_t n;
        while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
            if (write(out, buf, (size_t)n) != n)
                _exit(1);
        _exit(in >= 0 && out >= 0 && close(out) == 0 ? 0 : 1);
    }
    return reader;
}

/* Waits for the reader when the FIFO was opened for writing (`written`);
 * else the reader waits for a writer that never comes, and is stopped.
 * @return whether it read to the end. */
static int finish_reader(pid_t reader, int written)
{
    int status;
    if (!written)
        kill(reader, SIGKILL);
    return waitpid(reader, &status, 0) == reader && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

/* A FIFO is written into: a reader gets the whole PNG, the FIFO stays. */
static void test_fifo(const unsigned char *want, size_t want_len)
{
    char fifo[1200], copy[1200];
    snprintf(fifo, sizeof fifo, "%s", at("fifo.png"));
    snprintf(copy, sizeof copy, "%s", at("from-fifo.png"));
    ASSERT(mkfifo(fifo, 0644) == 0);
    pid_t reader = start_reader(fifo, copy);
    ASSERT_EQ(cli(input("gray8"), fifo, (char *)NULL), 0);
    int kept = type_of(fifo) == S_IFIFO;
    ASSERT(kept);
    ASSERT(finish_reader(reader, kept));
    if (kept)
        ASSERT(same_bytes(copy, want, want_len));
}

/* A socket is neither written nor replaced. */
static void test_socket(void)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    const char *path = at("socket.png");
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || strlen(path) >= sizeof addr.sun_path)
        hard_error("socket", path);
    strcpy(addr.sun_path, path);
    if (bind(fd, (const struct sockaddr *)&addr, sizeof addr) != 0)
        hard_error("bind", path);
    ASSERT_FAILS(cli(input("gray8"), path, (char *)NULL), 1, "socket.png",
                 "not a regular file");
    ASSERT_EQ(type_of(path), S_IFSOCK);
    close(fd);
}

/* "-" is standard output and standard input, never a file named "-". */
static void test_standard_streams(const unsigned char *want, size_t want_len)
{
    if (exists("-"))
        hard_error("a file named '-' is in the way", "-");
    ASSERT_EQ(cli(input("gray8"), "-", (char *)NULL), 0);
    ASSERT(same_bytes(at("stdout.txt"), want, want_len));
    ASSERT(!exists("-"));
    if (exists("-"))
        unlink("-");

    cli_stdin = input("gray8");
    ASSERT_EQ(cli("-", at("from-stdin.png"), (char *)NULL), 0);
    ASSERT(same_bytes(at("from-stdin.png"), want, want_len));
    ASSERT_EQ(cli("-", "-", (char *)NULL), 0);
    ASSERT(same_bytes(at("stdout.txt"), want, want_len));
    /* -o DIR names each output after its input: "-" has no name. */
    make_dir(at("streams"));
    ASSERT_EQ(cli("-o", at("streams"), "-", (char *)NULL), 1);
    ASSERT_CONTAINS(cli_err, "standard input has no file name");
    make_dir(at("streams/folder"));
    ASSERT_FAILS(cli("-", at("streams/folder"), (char *)NULL), 1, "standard input",
                 "no file name");
    int hidden;
    ASSERT_EQ(count_entries(at("streams"), &hidden), 1);
    ASSERT_FAILS(cli("-o", "-", input("gray8"), (char *)NULL), 2, "'-'", "not a folder");
    ASSERT(!exists("-"));
    cli_stdin = NULL;
}

/* ====== Links, permissions, owners =================================== */

/* A symbolic link is followed: its target is replaced, the link stays. */
static void test_symlinks(const unsigned char *want, size_t want_len)
{
    int hidden;
    make_dir(at("links"));
    make_dir(at("links/real"));
    write_all(at("links/real/target.png"), "old", 3);
    ASSERT(symlink("real/target.png", at("links/link.png")) == 0);
    ASSERT_EQ(cli(input("gray8"), at("links/link.png"), (char *)NULL), 0);
    ASSERT_EQ(type_of(at("links/link.png")), S_IFLNK);
    ASSERT(same_bytes(at("links/real/target.png"), want, want_len));
    /* The temporary file went beside the target, and is gone. */
    ASSERT_EQ(count_entries(at("links/real"), &hidden), 1);
    ASSERT_EQ(hidden, 0);

    /* A link to nothing is refused, and stays a link to nothing. */
    ASSERT(symlink("nowhere/missing.png", at("links/dangling.png")) == 0);
    ASSERT_FAILS(cli(input("gray8"), at("links/dangling.png"), (char *)NULL), 1,
                 "dangling.png", "missing");
    ASSERT_EQ(type_of(at("links/dangling.png")), S_IFLNK);
    ASSERT_EQ(count_entries(at("links"), &hidden), 3);
    ASSERT_EQ(hidden, 0);
}

/* A batch reads its next input while it filters one; an input that is a
 * link to an earlier input's output is still read after that output is
 * written, as one file at a time would: the old file there is no PNG. */
static void test_input_after_output(void)
{
    make_dir(at("chain"));
    make_dir(at("chain/out"));
    write_all(at("chain/out/gray8.png"), "old", 3);
    ASSERT(symlink("out/gray8.png", at("chain/again.png")) == 0);
    ASSERT_EQ(cli("-o", at("chain/out"), input("gray8"), at("chain/again.png"), (char *)NULL), 0);
    ASSERT_EQ(cli(at("chain/out/gray8.png"), at("chain/twice.png"), (char *)NULL), 0);
    size_t len;
    unsigned char *twice = read_all(at("chain/twice.png"), &len);
    ASSERT(same_bytes(at("chain/out/again.png"), twice, len));
    free(twice);
}

/* A replaced file keeps its permissions, and its owner where the process
 * may give it; other hard links keep the old contents. */
static void test_permissions(const unsigned char *want, size_t want_len)
{
    static const mode_t modes[] = {0600, 0640, 0444, 0604};
    struct stat st;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        const char *path = at("mode-%o.png", (unsigned)modes[i]);
        write_all(path, "old", 3);
        chmod(path, modes[i]);
        ASSERT_EQ(cli(input("gray8"), path, (char *)NULL), 0);
        ASSERT(stat(path, &st) == 0);
        if ((st.st_mode & 07777) != modes[i])
            TEST_FAIL_("%s: mode %o, wanted %o", path, (unsigned)(st.st_mode & 07777),
                       (unsigned)modes[i]);
        ASSERT(same_bytes(path, want, want_len));
    }
    /* A new file: 0666 less the umask (022 here). */
    ASSERT_EQ(cli(input("gray8"), at("new.png"), (char *)NULL), 0);
    ASSERT(stat(at("new.png"), &st) == 0 && (st.st_mode & 07777) == 0644);

    if (geteuid() == 0) {
        write_all(at("owned.png"), "old", 3);
        ASSERT(chown(at("owned.png"), 1234, 5678) == 0);
        ASSERT_EQ(cli(input("gray8"), at("owned.png"), (char *)NULL), 0);
        ASSERT(stat(at("owned.png"), &st) == 0 && st.st_uid == 1234 && st.st_gid == 5678);
    }

    write_all(at("one-name.png"), "old", 3);
    ASSERT(link(at("one-name.png"), at("other-name.png")) == 0);
    ASSERT_EQ(cli(input("gray8"), at("one-name.png"), (char *)NULL), 0);
    ASSERT(same_bytes(at("one-name.png"), want, want_len));
    ASSERT(same_bytes(at("other-name.png"), (const unsigned char *)"old", 3));
}

/* ====== Long names ================================================== */

/* Any name the folder takes can be written, though ".NAME.XXXXXX" would
 * not fit in NAME_MAX; one byte more is refused with no debris. */
static void test_long_names(void)
{
    char name[300];
    int hidden;
    long name_max;
    make_dir(at("long"));
    name_max = pathconf(at("long"), _PC_NAME_MAX);
    if (name_max <= 0 || name_max > 280)
        hard_error("pathconf NAME_MAX", at("long"));
    for (long len = name_max - 8; len <= name_max; len++) {
        memset(name, 'n', (size_t)len - 4);
        memcpy(name + len - 4, ".png", 5);
        ASSERT_EQ(cli(input("gray8"), at("long/%s", name), (char *)NULL), 0);
        ASSERT(exists(at("long/%s", name)));
        /* Written twice: the second replaces the first. */
        ASSERT_EQ(cli(input("gray8"), at("long/%s", name), (char *)NULL), 0);
    }
    ASSERT_EQ(count_entries(at("long"), &hidden), 9);
    ASSERT_EQ(hidden, 0);

    /* In a batch the output takes the input's long name. */
    size_t png_len;
    unsigned char *png = read_all(input("gray8"), &png_len);
    write_all(at("%s", name), png, png_len);
    free(png);
    ASSERT_EQ(cli("-o", at("long-batch"), at("%s", name), (char *)NULL), 0);
    ASSERT(exists(at("long-batch/%s", name)));
    ASSERT_EQ(count_entries(at("long-batch"), &hidden), 1);
    ASSERT_EQ(hidden, 0);

    memset(name, 'n', (size_t)name_max + 1);
    name[name_max + 1] = '\0';
    ASSERT_FAILS(cli(input("gray8"), at("long/%s", name), (char *)NULL), 1, "nnnn",
                 "too long");
    ASSERT_EQ(count_entries(at("long"), &hidden), 9);
    ASSERT_EQ(hidden, 0);
}

/* ====== Signals ===================================================== */

/* Reads the command's stderr until its line for the first file. */
static int wait_for_first_file(int fd)
{
    char buf[1 << 12];
    size_t n = 0;
    ssize_t got;
    while (n + 1 < sizeof buf && (got = read(fd, buf + n, 1)) == 1) {
        buf[++n] = '\0';
        if (strstr(buf, "[1/2]"))
            return 0;
    }
    fprintf(stderr, "the command's stderr: %s\n", n ? buf : "(nothing)");
    return -1;
}

/* A batch of two whose second output is a FIFO: the command cannot finish
 * before the FIFO has a reader, so a signal sent after the first file
 * always finds it running.  `ignored` comes in ignored, as under nohup (0:
 * none).  @return the command's status. */
static int signal_mid_batch(int sig, int ignored, const char *dir, int *fifo_kept)
{
    const char *args[] = {"-o", dir, input("gray8"), input("rgb8")};
    char fifo[1200], copy[1200];
    int err_fd;
    remove_tree(dir);
    make_dir(dir);
    snprintf(fifo, sizeof fifo, "%s/rgb8.png", dir);
    snprintf(copy, sizeof copy, "%s.copy", dir);
    if (mkfifo(fifo, 0644) != 0)
        hard_error("mkfifo", fifo);
    pid_t pid = cli_start(4, args, ignored, &err_fd);
    if (wait_for_first_file(err_fd) == 0)
        kill(pid, sig);
    else
        TEST_FAIL_("no line for the first file");
    pid_t reader = start_reader(fifo, copy);
    int rc = cli_wait(pid);
    ssize_t got = read(err_fd, cli_err, sizeof cli_err - 1); /* what came after */
    cli_err[got > 0 ? got : 0] = '\0';
    close(err_fd);
    *fifo_kept = type_of(fifo) == S_IFIFO;
    finish_reader(reader, rc == 0 && *fifo_kept);
    return rc;
}

/* A signal the command inherits as ignored stays ignored (nohup, or '&'
 * in a script for SIGINT); one it does not ends it, and no temporary file
 * is left. */
static void test_signals(void)
{
    static const int sigs[] = {SIGHUP, SIGINT, SIGTERM};
    int hidden, kept;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        int rc = signal_mid_batch(sigs[i], sigs[i], at("nohup-%d", sigs[i]), &kept);
        if (rc != 0)
            TEST_FAIL_("signal %d, inherited as ignored: status %d, %s", sigs[i], rc, cli_err);
        ASSERT(kept);
        ASSERT(exists(at("nohup-%d/gray8.png", sigs[i])));
        ASSERT_EQ(count_entries(at("nohup-%d", sigs[i]), &hidden), 2);
        ASSERT_EQ(hidden, 0);
    }
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        int rc = signal_mid_batch(sigs[i], 0, at("killed-%d", sigs[i]), &kept);
        ASSERT_EQ(rc, 128 + sigs[i]);
        ASSERT(kept);
        ASSERT_EQ(count_entries(at("killed-%d", sigs[i]), &hidden), 2);
        ASSERT_EQ(hidden, 0);
    }
}

int main(void)
{
    size_t len;
    int rc = cli_harness_init("cli-outputs");
    if (rc)
        return rc;
    umask(022);
    cli_pictures_make();
    unsigned char *want = expected_png("gray8", &len);

    test_character_device();
    test_fifo(want, len);
    test_socket();
    test_standard_streams(want, len);
    test_symlinks(want, len);
    test_input_after_output();
    test_permissions(want, len);
    test_long_names();
    test_signals();

    free(want);
    cli_pictures_free();
    if (!test_failures)
        remove_tree(tmp);
    return test_exit();
}
