/* The cold start: a fresh process (this program run with --cold) to its
 * first filtered image, with the driver caches and AUTO's calibration
 * empty, then warm, then empty with the calibration off. */
#include "bench.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int cold_child(const char *t0_text)
{
    int64_t t_main = now_ns(), t0 = strtoll(t0_text, NULL, 10);
    oclconv_image src, dst;
    if (image_alloc(&src, 3840, 2160, 4, OCLCONV_U8) ||
        image_alloc(&dst, 3840, 2160, 4, OCLCONV_U8)) {
        printf("cold error out of memory\n");
        return 1;
    }
    image_fill(&src, 7);
    int64_t t_img = now_ns();
    oclconv_context *ctx = NULL;
    oclconv_filter *f = NULL, *g = NULL;
    oclconv_status s = oclconv_create(NULL, &ctx);
    int64_t t_ctx = now_ns();
    if (s == OCLCONV_OK)
        s = oclconv_filter_gaussian(1.0, 0, 3, 3, &f);
    if (s == OCLCONV_OK)
        s = oclconv_apply(ctx, &src, &dst, f, NULL);
    int64_t t_first = now_ns();
    size_t built_first = oclconv_programs_built(ctx);
    if (s == OCLCONV_OK)
        s = oclconv_filter_gaussian(1.3, 0, 3, 3, &g);
    int64_t t_g = now_ns();
    if (s == OCLCONV_OK)
        s = oclconv_apply(ctx, &src, &dst, g, NULL);
    int64_t t_second = now_ns();
    size_t built_second = oclconv_programs_built(ctx) - built_first;
    if (s != OCLCONV_OK)
        printf("cold error %s: %s\n", oclconv_strerror(s),
               ctx ? oclconv_errmsg(ctx) : oclconv_errmsg(NULL));
    else
        printf("cold ok %.3f %.3f %.3f %zu %.3f %zu %s %s\n", 1e-6 * (double)(t_main - t0),
               1e-6 * (double)(t_ctx - t_img), 1e-6 * (double)(t_first - t_ctx), built_first,
               1e-6 * (double)(t_second - t_g), built_second,
               oclconv_method_name(oclconv_last_method(ctx)),
               oclconv_last_choice(ctx) == OCLCONV_CHOICE_MEASURED ? "measured" : "ruled");
    oclconv_filter_destroy(f);
    oclconv_filter_destroy(g);
    oclconv_destroy(ctx);
    image_free(&src);
    image_free(&dst);
    return s == OCLCONV_OK ? 0 : 1;
}

/* The environment with the driver caches and AUTO's calibration pointed
 * at `cache`, the calibration off where `off`. */
static char **cold_environment(const char *cache, int off, char (*set)[600])
{
    static const char *const names[] = {"POCL_CACHE_DIR=", "CUDA_CACHE_PATH=",
                                        "OCLCONV_CALIBRATION_DIR=", "OCLCONV_CALIBRATE="};
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = malloc((n + 5) * sizeof *env);
    if (!env)
        return NULL;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        int ours = 0;
        for (int k = 0; k < 4; k++)
            ours |= strncmp(environ[i], names[k], strlen(names[k])) == 0;
        if (!ours)
            env[m++] = environ[i];
    }
    snprintf(set[0], sizeof set[0], "POCL_CACHE_DIR=%s/pocl", cache);
    snprintf(set[1], sizeof set[1], "CUDA_CACHE_PATH=%s/cuda", cache);
    snprintf(set[2], sizeof set[2], "OCLCONV_CALIBRATION_DIR=%s/calibration", cache);
    snprintf(set[3], sizeof set[3], "OCLCONV_CALIBRATE=%s", off ? "off" : "on");
    for (int k = 0; k < 4; k++)
        env[m++] = set[k];
    env[m] = NULL;
    return env;
}

/* Runs `self --cold T0` with the driver caches in `cache` and reads its line. */
static void cold_start(const char *self, const char *cache, int off, cold_result *out)
{
    memset(out, 0, sizeof *out);
    char set[4][600];
    char **env = cold_environment(cache, off, set);
    int fd[2];
    if (!env || pipe(fd) != 0) {
        snprintf(out->error, sizeof out->error, "no pipe: %s", strerror(errno));
        free(env);
        return;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
    char t0_text[32], cold_flag[] = "--cold", *self_copy = strdup(self);
    char *argv[] = {self_copy, cold_flag, t0_text, NULL};
    pid_t pid = 0;
    snprintf(t0_text, sizeof t0_text, "%lld", (long long)now_ns());
    int e = self_copy ? posix_spawnp(&pid, self, &fa, NULL, argv, env) : ENOMEM;
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    free(env);
    free(self_copy);
    if (e != 0) {
        close(fd[0]);
        snprintf(out->error, sizeof out->error, "cannot start %s: %s", self, strerror(e));
        return;
    }
    char line[960] = "";
    FILE *f = fdopen(fd[0], "r");
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = 0;
        char rest[256];
        while (fgets(rest, sizeof rest, f)) /* drain */
            ;
        fclose(f);
    } else {
        close(fd[0]);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    line[strcspn(line, "\n")] = 0;
    if (sscanf(line, "cold ok %lf %lf %lf %zu %lf %zu %15s %15s", &out->pre_main_ms,
               &out->create_ms, &out->first_ms, &out->built_first, &out->second_ms,
               &out->built_second, out->method, out->choice) == 8)
        out->ok = 1;
    else if (strncmp(line, "cold error ", 11) == 0)
        snprintf(out->error, sizeof out->error, "%s", line + 11);
    else
        snprintf(out->error, sizeof out->error, "the child printed \"%s\" (exit status %d)", line,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void remove_tree(const char *dir)
{
    char rm[] = "rm", rf[] = "-rf", *d = strdup(dir);
    char *argv[] = {rm, rf, d, NULL};
    pid_t pid = 0;
    if (d && posix_spawnp(&pid, "rm", NULL, NULL, argv, environ) == 0)
        waitpid(pid, NULL, 0);
    free(d);
}

/* A fresh folder for the caches: "pocl" and "cuda" in it; 0 on failure. */
static int fresh_cache(char *cache, cold_result *out)
{
    strcpy(cache, "/tmp/oclconv-bench-XXXXXX");
    if (!mkdtemp(cache)) {
        snprintf(out->error, sizeof out->error, "no temporary folder: %s", strerror(errno));
        return 0;
    }
    char sub[64];
    snprintf(sub, sizeof sub, "%s/pocl", cache);
    mkdir(sub, 0700);
    snprintf(sub, sizeof sub, "%s/cuda", cache);
    mkdir(sub, 0700);
    return 1;
}

void cold_starts(const char *self, cold_result cold[COLD_RUNS])
{
    memset(cold, 0, COLD_RUNS * sizeof *cold);
    char cache[32];
    if (fresh_cache(cache, &cold[0])) {
        cold_start(self, cache, 0, &cold[0]); /* the caches empty */
        cold_start(self, cache, 0, &cold[1]); /* what the first left */
        remove_tree(cache);
    }
    if (fresh_cache(cache, &cold[2])) {
        cold_start(self, cache, 1, &cold[2]);
        remove_tree(cache);
    }
}

void print_cold(const cold_result cold[COLD_RUNS])
{
    static const char *const whats[COLD_RUNS] = {
        "cold start, caches empty:            ", "cold start, caches warm:             ",
        "cold start, caches empty, no calibration:"};
    for (int i = 0; i < COLD_RUNS; i++) {
        const cold_result *c = &cold[i];
        if (!c->ok) {
            printf("%s failed: %s\n", whats[i], c->error);
            continue;
        }
        printf("%s %.0f ms from process start to the first 4K RGBA8 gauss r3 image\n"
               "    = start to main() %.1f ms + oclconv_create %.0f ms + first apply %.0f ms (%s "
               "path, %s, %zu program%s built)\n",
               whats[i], c->pre_main_ms + c->create_ms + c->first_ms, c->pre_main_ms,
               c->create_ms, c->first_ms, c->method, c->choice, c->built_first,
               c->built_first == 1 ? "" : "s");
    }
    if (cold[0].ok && cold[2].ok)
        printf("AUTO's first calibration on this device: %.0f ms (the first apply with it, less "
               "without it)\n", cold[0].first_ms - cold[2].first_ms);
    printf("    (each in a fresh process: this program run with --cold; POCL_CACHE_DIR, "
           "CUDA_CACHE_PATH and\n"
           "    OCLCONV_CALIBRATION_DIR point at an empty folder for the first and the third, at "
           "what the\n"
           "    first left for the second; the fill of the test image is excluded)\n");
    if (cold[1].ok || cold[0].ok) {
        const cold_result *c = cold[1].ok ? &cold[1] : &cold[0];
        printf("programs built by a second gauss r3 with a new sigma: %zu (%s); its apply took "
               "%.0f ms\n",
               c->built_second, c->built_second == 0 ? "ok, must be 0" : "WRONG, must be 0",
               c->second_ms);
    }
}
