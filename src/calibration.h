/* AUTO's measured choices as src/calibrate.c keeps them, and their file a
 * device (src/calibration_file.c): the table of a context's entries, one a
 * class of jobs, what names the file and where it lies, reading it and
 * writing it. */
#ifndef OCLCONV_CALIBRATION_H
#define OCLCONV_CALIBRATION_H

#include "internal.h"

#define OCLCONV_CALIBRATION_KEY_MAX 64
#define OCLCONV_CALIBRATION_DETAIL_MAX 128
/* The measurements' version: a file of another is another machine's.
 * Raised when calibrate.c's class_key() changes, or when the host side of
 * a path changes what it runs (its sums' precision, its shapes): the
 * identity hashes the kernels' sources, not the planner (3: float results
 * of direct 2-D filters past one float sum's bound sum their rows in
 * float, where they summed in double). */
#define OCLCONV_CALIBRATION_CLASSES 3

typedef struct {
    char key[OCLCONV_CALIBRATION_KEY_MAX];
    oclconv_method method;
    int measured_here; /* in this context, not read from the file */
    char detail[OCLCONV_CALIBRATION_DETAIL_MAX];
} oclconv__calibration_entry;

struct oclconv__calibration {
    char path[4096]; /* the file the entries were read from; "" none */
    int loaded;
    uint64_t id;     /* oclconv__calibration_identity() */
    char who[1200];
    oclconv__calibration_entry *e;
    int n, cap;
};

/* The hash of what the measurements belong to, its text in `text`. */
uint64_t oclconv__calibration_identity(const oclconv_context *ctx, char *text, size_t size);
/* The file for `id` in the calibration folder; 0 when there is none. */
int oclconv__calibration_path(const oclconv_context *ctx, uint64_t id, char *path, size_t size);
/* The entry for `key`, or NULL. */
oclconv__calibration_entry *oclconv__calibration_find(struct oclconv__calibration *c,
                                                      const char *key);
/* The entry for `key`, added empty where there is none; NULL out of memory. */
oclconv__calibration_entry *oclconv__calibration_add(struct oclconv__calibration *c,
                                                     const char *key);
/* Adds the file's entries to c (not over those measured here). */
void oclconv__calibration_read(struct oclconv__calibration *c, const char *path, uint64_t id);
/* Writes c's entries, merged with the file's, to the file. */
void oclconv__calibration_write(struct oclconv__calibration *c, const char *path, uint64_t id,
                                const char *who);

#endif
