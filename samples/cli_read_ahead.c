#define _XOPEN_SOURCE 700 /* realpath */

#include "cli_read_ahead.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image_io.h"
#include "output_file.h"

void read_input(const char *in, const char *out, read_result *res)
{
    struct stat in_st, out_st;
    const int from_stdin = strcmp(in, "-") == 0;
    memset(res, 0, sizeof *res);
    res->status = -1;
    if (from_stdin && isatty(STDIN_FILENO)) {
        snprintf(res->why, sizeof res->why,
                 "standard input is a terminal: redirect it or name a file");
        return;
    }
    FILE *fp = from_stdin ? stdin : fopen(in, "rb");
    if (!fp) {
        snprintf(res->why, sizeof res->why, "%s", strerror(errno));
        return;
    }
    if (fstat(fileno(fp), &in_st) == 0 &&
        (strcmp(out, "-") == 0 ? fstat(STDOUT_FILENO, &out_st) : stat(out, &out_st)) == 0 &&
        in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino) {
        snprintf(res->why, sizeof res->why, "input and output are the same file (%s)", out);
    } else if (image_io_read(fp, &res->pic, res->why, sizeof res->why) == 0) {
        res->status = 0;
    }
    if (!from_stdin)
        fclose(fp);
}

/* Whether input `in` is the file output `out` will be, links followed: the
 * output's folder resolved, with its name.  1 also where the input cannot
 * be resolved now (a link to a file not written yet), so that it is read
 * only after the outputs before it. */
static int reads_output(const char *in, const char *out)
{
    char real_in[PATH_MAX], dir[PATH_MAX], real_dir[PATH_MAX], joined[2 * PATH_MAX + 2];
    if (strcmp(in, "-") == 0 || strcmp(out, "-") == 0)
        return 0;
    if (!realpath(in, real_in))
        return 1;
    const char *slash = strrchr(out, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (slash > out ? (int)(slash - out) : 1) : 1,
             slash ? out : ".");
    if (!realpath(dir, real_dir))
        return 0;
    snprintf(joined, sizeof joined, "%s/%s", real_dir, slash ? slash + 1 : out);
    return strcmp(real_in, joined) == 0;
}

struct read_ahead {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    char *const *ins, *const *outs;
    const int *skip;
    int n;
    int *after;       /* after[i]: the earlier input whose output input i reads, or -1 */
    int written;      /* inputs 0 .. written - 1 are done */
    int stop;
    int reading;      /* in read_input(), which may block (a FIFO with no writer) */
    int orphan;       /* stopped while reading: the thread frees all this */
    int ready;        /* the index the slot holds, or -1 when empty */
    read_result slot;
};

static void release(read_ahead *ra)
{
    if (ra->ready >= 0)
        png_io_free(&ra->slot.pic);
    pthread_cond_destroy(&ra->changed);
    pthread_mutex_destroy(&ra->lock);
    free(ra->after);
    free(ra);
}

static void *reader(void *arg)
{
    read_ahead *ra = arg;
    output_file_helper_thread();
    for (int i = 0; i < ra->n; i++) {
        if (ra->skip[i])
            continue;
        pthread_mutex_lock(&ra->lock);
        while (!ra->stop && ra->written <= ra->after[i])
            pthread_cond_wait(&ra->changed, &ra->lock);
        int stop = ra->stop;
        ra->reading = !stop;
        /* Copies: an orphan's names may be freed under it. */
        char *in = stop ? NULL : strdup(ra->ins[i]), *out = stop ? NULL : strdup(ra->outs[i]);
        pthread_mutex_unlock(&ra->lock);
        if (stop)
            break;
        read_result res;
        if (in && out) {
            read_input(in, out, &res);
        } else {
            memset(&res, 0, sizeof res);
            res.status = -1;
            snprintf(res.why, sizeof res.why, "out of memory");
        }
        free(in);
        free(out);
        pthread_mutex_lock(&ra->lock);
        ra->reading = 0;
        if (ra->orphan) {
            pthread_mutex_unlock(&ra->lock);
            png_io_free(&res.pic);
            release(ra);
            return NULL;
        }
        while (!ra->stop && ra->ready >= 0)
            pthread_cond_wait(&ra->changed, &ra->lock);
        stop = ra->stop;
        if (!stop) {
            ra->slot = res;
            ra->ready = i;
            pthread_cond_broadcast(&ra->changed);
        }
        pthread_mutex_unlock(&ra->lock);
        if (stop) {
            png_io_free(&res.pic);
            break;
        }
    }
    return NULL;
}

read_ahead *read_ahead_start(char *const *ins, char *const *outs, const int *skip, int n)
{
    read_ahead *ra = calloc(1, sizeof *ra);
    if (!ra)
        return NULL;
    ra->after = malloc((size_t)n * sizeof *ra->after);
    if (!ra->after) {
        free(ra);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        ra->after[i] = -1;
        for (int j = 0; j < i && !skip[i]; j++)
            if (!skip[j] && reads_output(ins[i], outs[j]))
                ra->after[i] = j;
    }
    ra->ins = ins;
    ra->outs = outs;
    ra->skip = skip;
    ra->n = n;
    ra->ready = -1;
    pthread_mutex_init(&ra->lock, NULL);
    pthread_cond_init(&ra->changed, NULL);
    if (pthread_create(&ra->thread, NULL, reader, ra) != 0) {
        release(ra);
        return NULL;
    }
    return ra;
}

void read_ahead_take(read_ahead *ra, int i, read_result *res)
{
    pthread_mutex_lock(&ra->lock);
    while (ra->ready != i)
        pthread_cond_wait(&ra->changed, &ra->lock);
    *res = ra->slot;
    memset(&ra->slot, 0, sizeof ra->slot);
    ra->ready = -1;
    pthread_cond_broadcast(&ra->changed);
    pthread_mutex_unlock(&ra->lock);
}

void read_ahead_written(read_ahead *ra, int i)
{
    pthread_mutex_lock(&ra->lock);
    if (ra->written < i + 1)
        ra->written = i + 1;
    pthread_cond_broadcast(&ra->changed);
    pthread_mutex_unlock(&ra->lock);
}

void read_ahead_stop(read_ahead *ra)
{
    if (!ra)
        return;
    pthread_mutex_lock(&ra->lock);
    ra->stop = 1;
    pthread_cond_broadcast(&ra->changed);
    /* A read that blocks would hold the command up, which one file at a
     * time would never have opened: the thread is left to finish it, or to
     * end with the process, and frees all this itself. */
    ra->orphan = ra->reading;
    pthread_mutex_unlock(&ra->lock);
    if (ra->orphan) {
        pthread_detach(ra->thread);
        return;
    }
    pthread_join(ra->thread, NULL);
    release(ra);
}
