/* Blurs a hard edge in memory with a Gaussian and prints one row across it.
 * Build: cc blur_example.c $(pkg-config --cflags --libs oclconv) */
#include <oclconv.h>
#include <stdio.h>

int main(void)
{
    static unsigned char pixels[32][32];       /* 32x32 gray, 8 bits */
    for (int y = 0; y < 32; y++)
        for (int x = 16; x < 32; x++)
            pixels[y][x] = 255;                /* black left half, white right */
    oclconv_image img = {pixels, 32, 32, 1, OCLCONV_U8, 0};

    oclconv_context *ctx = NULL;
    oclconv_filter *blur = NULL;
    oclconv_status s = oclconv_create(NULL, &ctx); /* OCLCONV_DEVICE, else a GPU */
    if (s == OCLCONV_OK)
        s = oclconv_filter_gaussian(2.0, 0, 0, 0, &blur); /* sigma 2, 13x13 taps */
    if (s == OCLCONV_OK)
        s = oclconv_apply(ctx, &img, &img, blur, NULL);   /* in place, clamped border */
    if (s != OCLCONV_OK) {
        fprintf(stderr, "%s: %s\n", oclconv_strerror(s), oclconv_errmsg(ctx));
        return 1;
    }
    printf("%s:", oclconv_device_name(ctx));
    for (int x = 10; x < 22; x++)
        printf(" %d", pixels[16][x]);
    printf("\n");
    oclconv_filter_destroy(blur);
    oclconv_destroy(ctx);
    return 0;
}
