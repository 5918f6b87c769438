/*
 * contact_sheet — lays PNG images out in a grid of labelled thumbnails.
 *
 *   contact_sheet [-c COLUMNS] [-t SIZE] OUT.png LABEL=IN.png...
 *
 * Each image is shrunk (never enlarged) to fit SIZE x SIZE pixels by
 * averaging, drawn over a checkerboard where it is transparent, and labelled
 * underneath in a built-in 5x7 pixel font.  `make demo` uses it to show the
 * filters side by side.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "png_io.h"

/* ====== Font ========================================================= */

/* Upper case letters, digits and a few symbols; lower case letters draw as
 * upper case, anything else as '?'. */
static const struct {
    char ch;
    const char *rows[7];
} font[] = {
    {'A', {".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
    {'B', {"####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."}},
    {'C', {".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."}},
    {'D', {"###..", "#..#.", "#...#", "#...#", "#...#", "#..#.", "###.."}},
    {'E', {"#####", "#....", "#....", "####.", "#....", "#....", "#####"}},
    {'F', {"#####", "#....", "#....", "####.", "#....", "#....", "#...."}},
    {'G', {".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"}},
    {'H', {"#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
    {'I', {".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."}},
    {'J', {"..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."}},
    {'K', {"#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"}},
    {'L', {"#....", "#....", "#....", "#....", "#....", "#....", "#####"}},
    {'M', {"#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"}},
    {'N', {"#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"}},
    {'O', {".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
    {'P', {"####.", "#...#", "#...#", "####.", "#....", "#....", "#...."}},
    {'Q', {".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"}},
    {'R', {"####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"}},
    {'S', {".####", "#....", "#....", ".###.", "....#", "....#", "####."}},
    {'T', {"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."}},
    {'U', {"#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
    {'V', {"#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."}},
    {'W', {"#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."}},
    {'X', {"#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"}},
    {'Y', {"#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."}},
    {'Z', {"#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"}},
    {'0', {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."}},
    {'1', {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."}},
    {'2', {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"}},
    {'3', {"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."}},
    {'4', {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."}},
    {'5', {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."}},
    {'6', {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."}},
    {'7', {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."}},
    {'8', {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."}},
    {'9', {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."}},
    {'-', {".....", ".....", ".....", "#####", ".....", ".....", "....."}},
    {'.', {".....", ".....", ".....", ".....", ".....", ".##..", ".##.."}},
    {':', {".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."}},
    {'_', {".....", ".....", ".....", ".....", ".....", ".....", "#####"}},
    {'/', {".....", "....#", "...#.", "..#..", ".#...", "#....", "....."}},
    {'(', {"...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#."}},
    {')', {".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#..."}},
    {'+', {".....", "..#..", "..#..", "#####", "..#..", "..#..", "....."}},
    {'=', {".....", ".....", "#####", ".....", "#####", ".....", "....."}},
    {',', {".....", ".....", ".....", ".....", ".##..", "..#..", ".#..."}},
    {'%', {"##...", "##..#", "...#.", "..#..", ".#...", "#..##", "...##"}},
    {'?', {".###.", "#...#", "....#", "...#.", "..#..", ".....", "..#.."}},
    {' ', {".....", ".....", ".....", ".....", ".....", ".....", "....."}},
};

enum { GLYPH_W = 5, GLYPH_H = 7, TEXT_SCALE = 2, ADVANCE = (GLYPH_W + 1) * TEXT_SCALE };

static int glyph_index(char c)
{
    int n = (int)(sizeof font / sizeof font[0]), unknown = 0;
    c = (char)toupper((unsigned char)c);
    for (int i = 0; i < n; i++) {
        if (font[i].ch == c)
            return i;
        if (font[i].ch == '?')
            unknown = i;
    }
    return unknown;
}

/* ====== Canvas ======================================================= */

typedef struct {
    int width, height;
    uint8_t *rgb; /* width * height * 3 */
} canvas;

static void draw_text(canvas *cv, int x, int y, const char *text, const uint8_t colour[3])
{
    for (; *text; text++, x += ADVANCE) {
        int g = glyph_index(*text);
        for (int row = 0; row < GLYPH_H * TEXT_SCALE; row++)
            for (int col = 0; col < GLYPH_W * TEXT_SCALE; col++) {
                int px = x + col, py = y + row;
                if (font[g].rows[row / TEXT_SCALE][col / TEXT_SCALE] != '#' || px < 0 ||
                    py < 0 || px >= cv->width || py >= cv->height)
                    continue;
                memcpy(cv->rgb + ((size_t)py * (size_t)cv->width + (size_t)px) * 3, colour, 3);
            }
    }
}

/* One value of a picture as 8 bits. */
static unsigned value8(const oclconv_image *img, size_t i)
{
    if (img->type == OCLCONV_U16)
        return (((const uint16_t *)img->data)[i] * 255u + 32767u) / 65535u;
    return ((const uint8_t *)img->data)[i];
}

/* Shrinks img by averaging into a tw x th block of the canvas at (ox, oy),
 * over a checkerboard where it is transparent. */
static void draw_thumbnail(canvas *cv, int ox, int oy, int tw, int th, const oclconv_image *img)
{
    const int ch = img->channels, has_alpha = ch % 2 == 0;
    for (int y = 0; y < th; y++)
        for (int x = 0; x < tw; x++) {
            int x0 = (int)((long long)x * img->width / tw);
            int x1 = (int)((long long)(x + 1) * img->width / tw);
            int y0 = (int)((long long)y * img->height / th);
            int y1 = (int)((long long)(y + 1) * img->height / th);
            unsigned check = ((x / 8 + y / 8) & 1) ? 200 : 150;
            double sum[3] = {0, 0, 0};
            int count = 0;
            for (int sy = y0; sy < (y1 > y0 ? y1 : y0 + 1); sy++)
                for (int sx = x0; sx < (x1 > x0 ? x1 : x0 + 1); sx++) {
                    size_t at = ((size_t)sy * (size_t)img->width + (size_t)sx) * (size_t)ch;
                    double a = has_alpha ? value8(img, at + (size_t)ch - 1) / 255.0 : 1.0;
                    for (int k = 0; k < 3; k++) {
                        unsigned v = value8(img, at + (ch >= 3 ? (size_t)k : 0));
                        sum[k] += a * v + (1 - a) * check;
                    }
                    count++;
                }
            uint8_t *p = cv->rgb + ((size_t)(oy + y) * (size_t)cv->width + (size_t)(ox + x)) * 3;
            for (int k = 0; k < 3; k++)
                p[k] = (uint8_t)(sum[k] / count + 0.5);
        }
}

/* ====== Program ====================================================== */

/* The size of img shrunk to fit size x size, keeping its shape. */
static void thumbnail_size(const oclconv_image *img, int size, int *tw, int *th)
{
    int big = img->width > img->height ? img->width : img->height;
    *tw = big > size ? (int)((long long)img->width * size / big) : img->width;
    *th = big > size ? (int)((long long)img->height * size / big) : img->height;
    *tw = *tw < 1 ? 1 : *tw;
    *th = *th < 1 ? 1 : *th;
}

enum { MARGIN = 12, LABEL_GAP = 6, LABEL_H = GLYPH_H * TEXT_SCALE };

static int usage(void)
{
    fputs("usage: contact_sheet [-c COLUMNS] [-t SIZE] OUT.png LABEL=IN.png...\n", stderr);
    return 2;
}

int main(int argc, char **argv)
{
    static const uint8_t background[3] = {32, 32, 32}, ink[3] = {235, 235, 235};
    int columns = 4, size = 256, argi = 1, n, rows, cell_w = 1, cell_h = 1, rc = 1;
    png_io_picture *pics = NULL;
    png_io_picture sheet;
    char why[300];
    FILE *fp;

    for (; argi + 1 < argc && argv[argi][0] == '-'; argi += 2) {
        int v = atoi(argv[argi + 1]);
        if (strcmp(argv[argi], "-c") == 0 && v > 0 && v <= 64)
            columns = v;
        else if (strcmp(argv[argi], "-t") == 0 && v >= 16 && v <= 4096)
            size = v;
        else
            return usage();
    }
    if (argc - argi < 2)
        return usage();
    const char *out = argv[argi++];
    n = argc - argi;
    pics = calloc((size_t)n, sizeof *pics);
    memset(&sheet, 0, sizeof sheet);
    if (!pics) {
        fprintf(stderr, "contact_sheet: out of memory\n");
        return 1;
    }

    for (int i = 0; i < n; i++) {
        const char *eq = strchr(argv[argi + i], '=');
        const char *path = eq ? eq + 1 : argv[argi + i];
        FILE *in = fopen(path, "rb");
        if (!in) {
            fprintf(stderr, "contact_sheet: %s: %s\n", path, strerror(errno));
            goto out;
        }
        int bad = png_io_read(in, &pics[i], why, sizeof why);
        fclose(in);
        if (bad) {
            fprintf(stderr, "contact_sheet: %s: %s\n", path, why);
            goto out;
        }
        int tw, th;
        thumbnail_size(&pics[i].image, size, &tw, &th);
        cell_w = tw > cell_w ? tw : cell_w;
        cell_h = th > cell_h ? th : cell_h;
    }
    if (cell_w < 10 * ADVANCE)
        cell_w = 10 * ADVANCE;

    columns = n < columns ? n : columns;
    rows = (n + columns - 1) / columns;
    canvas cv = {MARGIN + columns * (cell_w + MARGIN),
                 MARGIN + rows * (cell_h + LABEL_GAP + LABEL_H + MARGIN), NULL};
    cv.rgb = malloc((size_t)cv.width * (size_t)cv.height * 3);
    if (!cv.rgb) {
        fprintf(stderr, "contact_sheet: out of memory\n");
        goto out;
    }
    for (size_t i = 0; i < (size_t)cv.width * (size_t)cv.height; i++)
        memcpy(cv.rgb + i * 3, background, 3);

    for (int i = 0; i < n; i++) {
        const oclconv_image *img = &pics[i].image;
        const char *arg = argv[argi + i], *eq = strchr(arg, '=');
        char label[64];
        int tw, th;
        thumbnail_size(img, size, &tw, &th);
        int x = MARGIN + (i % columns) * (cell_w + MARGIN);
        int y = MARGIN + (i / columns) * (cell_h + LABEL_GAP + LABEL_H + MARGIN);
        int fit = cell_w / ADVANCE;
        snprintf(label, sizeof label, "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
        if ((int)strlen(label) > fit)
            label[fit] = '\0';
        draw_thumbnail(&cv, x + (cell_w - tw) / 2, y + (cell_h - th) / 2, tw, th, img);
        draw_text(&cv, x + (cell_w - (int)strlen(label) * ADVANCE + TEXT_SCALE) / 2,
                  y + cell_h + LABEL_GAP, label, ink);
    }

    sheet.image = (oclconv_image){cv.rgb, cv.width, cv.height, 3, OCLCONV_U8, 0};
    fp = fopen(out, "wb");
    if (!fp) {
        fprintf(stderr, "contact_sheet: %s: %s\n", out, strerror(errno));
    } else {
        int bad = png_io_write(fp, &sheet, NULL, why, sizeof why);
        if (fclose(fp) != 0 && !bad) {
            snprintf(why, sizeof why, "%s", strerror(errno));
            bad = 1;
        }
        if (bad) {
            fprintf(stderr, "contact_sheet: %s: %s\n", out, why);
            remove(out);
        } else {
            rc = 0;
        }
    }
    free(cv.rgb);
out:
    for (int i = 0; i < n; i++)
        png_io_free(&pics[i]);
    free(pics);
    return rc;
}
