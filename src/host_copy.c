/*
 * Host memory copies spread over a few threads: a batch from pageable
 * memory goes through pinned staging buffers (src/pipeline.c), and one
 * thread's memcpy moves less than the link does.  The caller's thread takes
 * the first share of each run; the others wait between runs.
 */
#include "internal.h"
#include "host_copy.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct oclconv__copier {
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    const oclconv__move *moves;
    size_t count, total;
    unsigned long run; /* the run the threads are to copy */
    int threads, busy, stop;
    pid_t pid; /* whose threads */
    pthread_t thread[OCLCONV_COPY_THREADS];
};

/* Copies share t of `threads` of the moves' bytes, taken end to end. */
static void copy_share(const oclconv__move *m, size_t count, size_t total, int t, int threads)
{
    size_t first = total / (size_t)threads * (size_t)t;
    size_t last = t == threads - 1 ? total : total / (size_t)threads * (size_t)(t + 1);
    for (size_t i = 0, at = 0; i < count && at < last; at += m[i++].bytes) {
        size_t from = first > at ? first - at : 0, to = last - at < m[i].bytes ? last - at
                                                                                  : m[i].bytes;
        if (from < to)
            memcpy(m[i].to + from, m[i].from + from, to - from);
    }
}

typedef struct {
    oclconv__copier *c;
    int t;
} worker_arg;

static void *worker(void *arg)
{
    oclconv__copier *c = ((worker_arg *)arg)->c;
    int t = ((worker_arg *)arg)->t;
    free(arg);
    unsigned long seen = 0;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->stop && c->run == seen)
            pthread_cond_wait(&c->work, &c->lock);
        if (c->stop)
            break;
        seen = c->run;
        pthread_mutex_unlock(&c->lock);
        copy_share(c->moves, c->count, c->total, t, c->threads);
        pthread_mutex_lock(&c->lock);
        if (--c->busy == 0)
            pthread_cond_signal(&c->done);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

oclconv__copier *oclconv__copier_start(int threads)
{
    threads = threads > OCLCONV_COPY_THREADS ? OCLCONV_COPY_THREADS : threads;
    oclconv__copier *c = threads > 1 ? calloc(1, sizeof *c) : NULL;
    if (!c)
        return NULL;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->work, NULL);
    pthread_cond_init(&c->done, NULL);
    c->threads = 1;
    c->pid = getpid();
    for (int t = 1; t < threads; t++) {
        worker_arg *arg = malloc(sizeof *arg);
        if (!arg)
            break;
        *arg = (worker_arg){c, t};
        if (pthread_create(&c->thread[t], NULL, worker, arg) != 0) {
            free(arg);
            break;
        }
        c->threads = t + 1;
    }
    return c;
}

void oclconv__copier_run(oclconv__copier *c, const oclconv__move *m, size_t count)
{
    size_t total = 0;
    for (size_t i = 0; i < count; i++)
        total += m[i].bytes;
    if (!c || c->threads < 2 || total < ((size_t)1 << 20)) {
        copy_share(m, count, total, 0, 1);
        return;
    }
    pthread_mutex_lock(&c->lock);
    c->moves = m;
    c->count = count;
    c->total = total;
    c->busy = c->threads - 1;
    c->run++;
    pthread_cond_broadcast(&c->work);
    pthread_mutex_unlock(&c->lock);
    copy_share(m, count, total, 0, c->threads);
    pthread_mutex_lock(&c->lock);
    while (c->busy > 0)
        pthread_cond_wait(&c->done, &c->lock);
    pthread_mutex_unlock(&c->lock);
}

int oclconv__copier_ours(const oclconv__copier *c)
{
    return c && c->pid == getpid();
}

void oclconv__copier_stop(oclconv__copier *c)
{
    if (!oclconv__copier_ours(c))
        return; /* a fork's: its threads and lock were the parent's */
    pthread_mutex_lock(&c->lock);
    c->stop = 1;
    pthread_cond_broadcast(&c->work);
    pthread_mutex_unlock(&c->lock);
    for (int t = 1; t < c->threads; t++)
        pthread_join(c->thread[t], NULL);
    pthread_cond_destroy(&c->work);
    pthread_cond_destroy(&c->done);
    pthread_mutex_destroy(&c->lock);
    free(c);
}
