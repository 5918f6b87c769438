/*
 * JPEG and TIFF test pictures, written here with libjpeg and libtiff
 * directly (not with the command's code), and what the command must make
 * of them.  See cli_harness.h.
 */
#include "cli_harness.h"

#include <math.h>
#include <stdio.h>

#include <jpeglib.h>
#include <tiffio.h>

#include "image_io.h"
#include "util.h"

const tiff_case tiff_cases[] = {
    {"t-gray8", 1, OCLCONV_U8, 0},
    {"t-gray16", 1, OCLCONV_U16, TIFF_DEFLATE},
    {"t-grayf", 1, OCLCONV_F32, 0},
    {"t-ga8", 2, OCLCONV_U8, 0},
    {"t-ga16", 2, OCLCONV_U16, TIFF_SEPARATE},
    {"t-rgb8", 3, OCLCONV_U8, TIFF_DEFLATE},
    {"t-rgb16", 3, OCLCONV_U16, 0},
    {"t-rgbf", 3, OCLCONV_F32, TIFF_DEFLATE},
    {"t-rgba8", 4, OCLCONV_U8, TIFF_TILED},
    {"t-rgba16", 4, OCLCONV_U16, 0},
    {"t-rgbaf", 4, OCLCONV_F32, TIFF_TILED | TIFF_DEFLATE},
    {"t-rgb8-planes", 3, OCLCONV_U8, TIFF_SEPARATE},
    {"t-gray8-white", 1, OCLCONV_U8, TIFF_MINISWHITE},
};
_Static_assert(sizeof tiff_cases / sizeof tiff_cases[0] == N_TIFF_CASES,
               "N_TIFF_CASES counts tiff_cases[]");

picture tiff_pictures[N_TIFF_CASES];
picture jpeg_pictures[2];

static size_t bytes_of(oclconv_type t)
{
    return t == OCLCONV_F32 ? 4 : t == OCLCONV_U16 ? 2 : 1;
}

/* Random values over the whole range, alpha often 0 or opaque; floats
 * mostly in 0..1 with some outside, which the command must keep. */
static oclconv_image make_tiff_image(uint64_t *rng, const tiff_case *c)
{
    const size_t n = (size_t)W * H * (size_t)c->channels;
    oclconv_image img = {malloc(n * bytes_of(c->type)), W, H, c->channels, c->type, 0};
    if (!img.data)
        exit(TEST_HARD_ERROR);
    for (size_t i = 0; i < n; i++) {
        const int alpha = c->channels % 2 == 0 && i % (size_t)c->channels == (size_t)c->channels - 1;
        const unsigned r = rng_next(rng) % 4;
        double u = rng_uniform(rng, 0, 1);
        if (alpha && r < 2)
            u = r; /* transparent or opaque */
        if (c->type == OCLCONV_F32)
            ((float *)img.data)[i] = (float)(!alpha && r == 0 ? u * 1.5 - 0.25 : u);
        else if (c->type == OCLCONV_U16)
            ((uint16_t *)img.data)[i] = (uint16_t)floor(u * 65535 + 0.5);
        else
            ((uint8_t *)img.data)[i] = (uint8_t)floor(u * 255 + 0.5);
    }
    return img;
}

void write_tiff(const char *path, const oclconv_image *img, int flags)
{
    TIFF *tif = TIFFOpen(path, "w");
    const size_t bytes = bytes_of(img->type), w = (size_t)img->width;
    const int ch = img->channels, planes = flags & TIFF_SEPARATE ? ch : 1;
    const uint16_t alpha = EXTRASAMPLE_UNASSALPHA;
    const size_t unit = flags & TIFF_SEPARATE ? bytes : bytes * (size_t)ch;
    if (!tif)
        hard_error("cannot write", path);
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)img->width);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)img->height);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)ch);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)(bytes * 8));
    TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT,
                 img->type == OCLCONV_F32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC,
                 ch >= 3                    ? PHOTOMETRIC_RGB
                 : flags & TIFF_MINISWHITE ? PHOTOMETRIC_MINISWHITE
                                           : PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG,
                 flags & TIFF_SEPARATE ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_COMPRESSION,
                 flags & TIFF_DEFLATE ? COMPRESSION_ADOBE_DEFLATE : COMPRESSION_NONE);
    if (ch % 2 == 0)
        TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &alpha);
    const uint32_t tw = flags & TIFF_TILED ? 16 : (uint32_t)w, th = flags & TIFF_TILED ? 16 : 3;
    if (flags & TIFF_TILED) {
        TIFFSetField(tif, TIFFTAG_TILEWIDTH, tw);
        TIFFSetField(tif, TIFFTAG_TILELENGTH, th);
    } else {
        TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, th); /* several strips */
    }
    unsigned char *buf = calloc((size_t)tw * th, unit);
    if (!buf)
        exit(TEST_HARD_ERROR);
    for (int s = 0; s < planes; s++)
        for (uint32_t y = 0; y < (uint32_t)img->height; y += th)
            for (uint32_t x = 0; x < (uint32_t)img->width; x += tw) {
                for (uint32_t r = 0; r < th; r++)
                    for (uint32_t c = 0; c < tw; c++) {
                        unsigned char *to = buf + ((size_t)r * tw + c) * unit;
                        if (y + r >= (uint32_t)img->height || x + c >= (uint32_t)img->width)
                            continue;
                        const unsigned char *from = (const unsigned char *)img->data +
                                                    (((y + r) * w + x + c) * (size_t)ch +
                                                     (size_t)(planes > 1 ? s : 0)) * bytes;
                        memcpy(to, from, unit);
                        if (flags & TIFF_MINISWHITE)
                            *to = (unsigned char)(255 - *to);
                    }
                tmsize_t size = (tmsize_t)((size_t)tw * (flags & TIFF_TILED ? th
                                                         : (uint32_t)img->height - y < th
                                                             ? (uint32_t)img->height - y
                                                             : th) * unit);
                int ok = flags & TIFF_TILED
                             ? TIFFWriteTile(tif, buf, x, y, 0, (uint16_t)s) >= 0
                             : TIFFWriteEncodedStrip(tif, TIFFComputeStrip(tif, y, (uint16_t)s),
                                                     buf, size) >= 0;
                if (!ok)
                    hard_error("libtiff failed on", path);
            }
    free(buf);
    if (!TIFFWriteDirectory(tif))
        hard_error("libtiff failed on", path);
    TIFFClose(tif);
}

/* Smooth shapes and a little noise: what JPEG is made for, so that its
 * losses at quality 90 stay small. */
static oclconv_image make_photo(uint64_t *rng, int w, int h, int channels)
{
    oclconv_image img = {malloc((size_t)w * (size_t)h * (size_t)channels), w, h, channels,
                         OCLCONV_U8, 0};
    if (!img.data)
        exit(TEST_HARD_ERROR);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < channels; c++) {
                double v = 128 + 90 * sin((x + 7 * c) / 6.0) * cos((y - 3 * c) / 9.0) +
                           rng_uniform(rng, -6, 6);
                ((uint8_t *)img.data)[((size_t)y * (size_t)w + (size_t)x) * (size_t)channels +
                                      (size_t)c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
    return img;
}

void write_jpeg(const char *path, const oclconv_image *img, int quality, int orientation,
                const unsigned char *icc, size_t icc_size)
{
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr jerr;
    FILE *fp = fopen(path, "wb");
    if (!fp)
        hard_error("cannot write", path);
    cinfo.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&cinfo);
    jpeg_stdio_dest(&cinfo, fp);
    cinfo.image_width = (JDIMENSION)img->width;
    cinfo.image_height = (JDIMENSION)img->height;
    cinfo.input_components = img->channels;
    cinfo.in_color_space = img->channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    if (orientation) {
        /* A big-endian EXIF block whose IFD0 holds only the Orientation. */
        const JOCTET exif[] = {'E', 'x', 'i', 'f', 0, 0, 'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1,
                               0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, (JOCTET)orientation, 0, 0,
                               0, 0, 0, 0};
        jpeg_write_marker(&cinfo, JPEG_APP0 + 1, exif, sizeof exif);
    }
    if (icc)
        jpeg_write_icc_profile(&cinfo, icc, (unsigned)icc_size);
    for (int y = 0; y < img->height; y++) {
        JSAMPROW row = (JSAMPROW)img->data + (size_t)y * (size_t)img->width *
                                                 (size_t)img->channels;
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    if (fclose(fp) != 0)
        hard_error("cannot write", path);
}

picture decode_jpeg(const char *path)
{
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr jerr;
    picture p;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        hard_error("cannot read", path);
    memset(&p, 0, sizeof p);
    cinfo.err = jpeg_std_error(&jerr);
    jpeg_create_decompress(&cinfo);
    jpeg_stdio_src(&cinfo, fp);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&cinfo);
    const size_t row = (size_t)cinfo.output_width * (size_t)cinfo.output_components;
    p.decoded = (oclconv_image){malloc(row * cinfo.output_height), (int)cinfo.output_width,
                                (int)cinfo.output_height, cinfo.output_components, OCLCONV_U8,
                                0};
    if (!p.decoded.data)
        exit(TEST_HARD_ERROR);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW r = (JSAMPROW)p.decoded.data + cinfo.output_scanline * row;
        jpeg_read_scanlines(&cinfo, &r, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    fclose(fp);
    return p;
}

int read_output(const char *path, png_io_picture *pic)
{
    char why[300];
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        memset(pic, 0, sizeof *pic);
        fprintf(stderr, "%s: cannot open\n", path);
        return -1;
    }
    int rc = image_io_read(fp, pic, why, sizeof why);
    fclose(fp);
    if (rc)
        fprintf(stderr, "%s: %s\n", path, why);
    return rc;
}

int tiff_case_index(const char *name)
{
    for (int i = 0; i < N_TIFF_CASES; i++)
        if (strcmp(tiff_cases[i].name, name) == 0)
            return i;
    exit(TEST_HARD_ERROR);
}

void cli_formats_make(void)
{
    uint64_t rng = 0x243f6a8885a308d3ull;
    make_dir(at("in"));
    for (int i = 0; i < N_TIFF_CASES; i++) {
        memset(&tiff_pictures[i], 0, sizeof tiff_pictures[i]);
        tiff_pictures[i].decoded = make_tiff_image(&rng, &tiff_cases[i]);
        write_tiff(at("in/%s.tif", tiff_cases[i].name), &tiff_pictures[i].decoded,
                   tiff_cases[i].flags);
    }
    for (int i = 0; i < 2; i++) {
        oclconv_image photo = make_photo(&rng, 64, 48, i ? 3 : 1);
        write_jpeg(at("in/%s.jpg", i ? "j-rgb" : "j-gray"), &photo, 90, 0, NULL, 0);
        free(photo.data);
        jpeg_pictures[i] = decode_jpeg(at("in/%s.jpg", i ? "j-rgb" : "j-gray"));
    }
}

void cli_formats_free(void)
{
    for (int i = 0; i < N_TIFF_CASES; i++)
        free(tiff_pictures[i].decoded.data);
    for (int i = 0; i < 2; i++)
        free(jpeg_pictures[i].decoded.data);
}
