/* Host memory copies spread over a few threads (src/host_copy.c). */
#ifndef OCLCONV_HOST_COPY_H
#define OCLCONV_HOST_COPY_H

#include <stddef.h>

/* Threads a host copy may spread over, the caller's among them (H200
 * host, 16 cores, a batch from pageable memory: 8 threads 6.2-7.3x a loop
 * of calls, 4 threads 4.3-5.2x). */
#define OCLCONV_COPY_THREADS 8
typedef struct {
    char *to;
    const char *from;
    size_t bytes;
} oclconv__move;
typedef struct oclconv__copier oclconv__copier;
/* Starts threads - 1 threads that copy beside the caller's; NULL where
 * threads < 2 or none can be had (the caller then copies alone). */
oclconv__copier *oclconv__copier_start(int threads);
/* Whether c's threads are this process's (not a fork's copy of them). */
int oclconv__copier_ours(const oclconv__copier *c);
/* Makes the count moves, their bytes shared among the threads (c may be
 * NULL), and returns once all are done. */
void oclconv__copier_run(oclconv__copier *c, const oclconv__move *m, size_t count);
/* Ends c's threads and frees it (a fork's copy: frees nothing). */
void oclconv__copier_stop(oclconv__copier *c);

#endif
