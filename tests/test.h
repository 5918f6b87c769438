/*
 * Shared by the test programs: assertions that report file and line, and the
 * automake exit protocol (0 pass, 77 skip, 99 hard error).
 */
#ifndef OCLCONV_TEST_H
#define OCLCONV_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_SKIP 77
#define TEST_HARD_ERROR 99

static int test_failures;

#define TEST_FAIL_(...)                                                     \
    do {                                                                    \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                     \
        fprintf(stderr, __VA_ARGS__);                                       \
        fputc('\n', stderr);                                                \
        test_failures++;                                                    \
    } while (0)

#define ASSERT(cond)                                                        \
    do {                                                                    \
        if (!(cond))                                                        \
            TEST_FAIL_("assertion failed: %s", #cond);                      \
    } while (0)

#define ASSERT_EQ(a, b)                                                     \
    do {                                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                 \
        if (a_ != b_)                                                       \
            TEST_FAIL_("%s == %s: %lld != %lld", #a, #b, a_, b_);           \
    } while (0)

#define ASSERT_STATUS(ctx, call, expected)                                  \
    do {                                                                    \
        oclconv_status s_ = (call);                                         \
        if (s_ != (expected))                                               \
            TEST_FAIL_("%s: %s (%s), wanted %s", #call, oclconv_strerror(s_), \
                       oclconv_errmsg(ctx), oclconv_strerror(expected));    \
    } while (0)

#define ASSERT_OK(ctx, call) ASSERT_STATUS(ctx, call, OCLCONV_OK)

#define ASSERT_CONTAINS(haystack, needle)                                   \
    do {                                                                    \
        const char *h_ = (haystack);                                        \
        if (!h_ || !strstr(h_, (needle)))                                   \
            TEST_FAIL_("\"%s\" does not contain \"%s\"", h_ ? h_ : "(null)", (needle)); \
    } while (0)

/* Ends a test program with the automake status. */
static inline int test_exit(void)
{
    if (test_failures)
        fprintf(stderr, "%d assertion(s) failed\n", test_failures);
    return test_failures ? 1 : 0;
}

#endif
