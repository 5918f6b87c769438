// OpenCV peers of the bench's cases; see opencv_peer.h.
#include "opencv_peer.h"

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

namespace {

std::string last_error;
std::string description;

// A Mat header over the caller's pixels.
cv::Mat wrap(const oclconv_image *img)
{
    int depth = img->type == OCLCONV_U8 ? CV_8U : img->type == OCLCONV_U16 ? CV_16U : CV_32F;
    size_t step = img->stride ? img->stride : static_cast<size_t>(cv::Mat::AUTO_STEP);
    return cv::Mat(img->height, img->width, CV_MAKETYPE(depth, img->channels), img->data, step);
}

// Runs f(source, destination) on Mat headers over the caller's pixels and
// checks that OpenCV wrote where the caller looks; any exception becomes -1
// and a message.
template <typename F> int guarded(const oclconv_image *src, oclconv_image *dst, F f)
{
    try {
        cv::Mat s = wrap(src), d = wrap(dst);
        f(s, d);
        if (d.data != dst->data)
            throw std::runtime_error("OpenCV reallocated the destination");
        return 0;
    } catch (const std::exception &e) {
        last_error = e.what();
    } catch (...) {
        last_error = "unknown exception";
    }
    return -1;
}

} // namespace

extern "C" const char *ocvpeer_describe(void)
{
    if (description.empty()) {
        // The build information names the threading back end on a line of its own.
        const std::string &info = cv::getBuildInformation();
        std::string framework = "?";
        size_t at = info.find("Parallel framework:");
        if (at != std::string::npos) {
            size_t from = info.find_first_not_of(" ", at + 19);
            size_t to = info.find('\n', from);
            framework = info.substr(from, to == std::string::npos ? to : to - from);
        }
        char buf[256];
        std::snprintf(buf, sizeof buf, "OpenCV %s, %d threads (%s), IPP %s", CV_VERSION,
                      cv::getNumThreads(), framework.c_str(), cv::ipp::useIPP() ? "on" : "off");
        description = buf;
    }
    return description.c_str();
}

extern "C" const char *ocvpeer_errmsg(void)
{
    return last_error.c_str();
}

extern "C" int ocvpeer_gaussian(const oclconv_image *src, oclconv_image *dst, int ksize,
                                double sigma)
{
    return guarded(src, dst, [&](const cv::Mat &s, cv::Mat &d) {
        cv::GaussianBlur(s, d, cv::Size(ksize, ksize), sigma, sigma, cv::BORDER_REPLICATE);
    });
}

extern "C" int ocvpeer_filter2d(const oclconv_image *src, oclconv_image *dst, const float *kernel,
                                int kw, int kh)
{
    return guarded(src, dst, [&](const cv::Mat &s, cv::Mat &d) {
        cv::Mat k(kh, kw, CV_32F, const_cast<float *>(kernel));
        cv::filter2D(s, d, -1, k, cv::Point(-1, -1), 0, cv::BORDER_REPLICATE);
    });
}

extern "C" int ocvpeer_sep_filter2d(const oclconv_image *src, oclconv_image *dst, const float *row,
                                    int nrow, const float *col, int ncol)
{
    return guarded(src, dst, [&](const cv::Mat &s, cv::Mat &d) {
        cv::Mat r(1, nrow, CV_32F, const_cast<float *>(row));
        cv::Mat c(ncol, 1, CV_32F, const_cast<float *>(col));
        cv::sepFilter2D(s, d, -1, r, c, cv::Point(-1, -1), 0, cv::BORDER_REPLICATE);
    });
}

extern "C" int ocvpeer_blur(const oclconv_image *src, oclconv_image *dst, int ksize)
{
    return guarded(src, dst, [&](const cv::Mat &s, cv::Mat &d) {
        cv::blur(s, d, cv::Size(ksize, ksize), cv::Point(-1, -1), cv::BORDER_REPLICATE);
    });
}
