#include "cli_write_behind.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output_file.h"

struct write_behind {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    write_behind_done done;
    void *arg;
    int stop;
    int full;    /* a picture waits to be written */
    int written; /* and has been: status and why hold the result */
    int index;
    char *out;
    png_io_picture pic;
    int status;
    char why[600];
};

static void *writer(void *arg)
{
    write_behind *wb = arg;
    output_file_helper_thread();
    pthread_mutex_lock(&wb->lock);
    for (;;) {
        while (!wb->stop && (!wb->full || wb->written))
            pthread_cond_wait(&wb->changed, &wb->lock);
        if (!wb->full || wb->written)
            break;
        pthread_mutex_unlock(&wb->lock);
        char why[sizeof wb->why] = "";
        int status = output_file_write(wb->out, &wb->pic, why, sizeof why);
        png_io_free(&wb->pic);
        wb->done(wb->arg, wb->index);
        pthread_mutex_lock(&wb->lock);
        wb->status = status;
        memcpy(wb->why, why, sizeof why);
        wb->written = 1;
        pthread_cond_broadcast(&wb->changed);
    }
    pthread_mutex_unlock(&wb->lock);
    return NULL;
}

write_behind *write_behind_start(write_behind_done done, void *arg)
{
    write_behind *wb = calloc(1, sizeof *wb);
    if (!wb)
        return NULL;
    wb->done = done;
    wb->arg = arg;
    pthread_mutex_init(&wb->lock, NULL);
    pthread_cond_init(&wb->changed, NULL);
    if (pthread_create(&wb->thread, NULL, writer, wb) != 0) {
        pthread_cond_destroy(&wb->changed);
        pthread_mutex_destroy(&wb->lock);
        free(wb);
        return NULL;
    }
    return wb;
}

void write_behind_put(write_behind *wb, int i, const char *out, png_io_picture *pic)
{
    char *name = strdup(out);
    pthread_mutex_lock(&wb->lock);
    while (wb->full)
        pthread_cond_wait(&wb->changed, &wb->lock);
    wb->index = i;
    wb->pic = *pic;
    memset(pic, 0, sizeof *pic);
    free(wb->out);
    wb->out = name;
    wb->full = 1;
    wb->written = 0;
    if (!name) { /* out of memory for the name: a failed write */
        png_io_free(&wb->pic);
        wb->status = -1;
        snprintf(wb->why, sizeof wb->why, "out of memory");
        wb->written = 1;
        pthread_mutex_unlock(&wb->lock);
        wb->done(wb->arg, i);
        return;
    }
    pthread_cond_broadcast(&wb->changed);
    pthread_mutex_unlock(&wb->lock);
}

int write_behind_take(write_behind *wb, char *why, size_t why_size)
{
    pthread_mutex_lock(&wb->lock);
    while (wb->full && !wb->written)
        pthread_cond_wait(&wb->changed, &wb->lock);
    int status = wb->full ? wb->status : 0;
    snprintf(why, why_size, "%s", wb->full ? wb->why : "");
    wb->full = 0;
    pthread_cond_broadcast(&wb->changed);
    pthread_mutex_unlock(&wb->lock);
    return status;
}

void write_behind_stop(write_behind *wb)
{
    if (!wb)
        return;
    pthread_mutex_lock(&wb->lock);
    wb->stop = 1;
    pthread_cond_broadcast(&wb->changed);
    pthread_mutex_unlock(&wb->lock);
    pthread_join(wb->thread, NULL);
    png_io_free(&wb->pic);
    free(wb->out);
    pthread_cond_destroy(&wb->changed);
    pthread_mutex_destroy(&wb->lock);
    free(wb);
}
