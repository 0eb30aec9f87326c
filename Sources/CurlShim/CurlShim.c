#include "CurlShim.h"
#include <pthread.h>
#include <time.h>
#ifdef __linux__
#include <sys/eventfd.h>
#endif
#ifdef __GLIBC__
#include <malloc.h>
#endif

static pthread_once_t cs_global_once = PTHREAD_ONCE_INIT;
static CURLcode cs_global_result = CURLE_OK;

static void cs_global_init(void) {
    cs_global_result = curl_global_init(CURL_GLOBAL_DEFAULT);
}

CURLcode cs_global_init_once(void) {
    pthread_once(&cs_global_once, cs_global_init);
    return cs_global_result;
}

CURLcode cs_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode cs_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode cs_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode cs_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode cs_easy_set_write_callback(CURL *handle, cs_data_callback callback, void *userdata) {
    CURLcode rc = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(handle, CURLOPT_WRITEDATA, userdata);
}

CURLcode cs_easy_set_header_callback(CURL *handle, cs_data_callback callback, void *userdata) {
    CURLcode rc = curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(handle, CURLOPT_HEADERDATA, userdata);
}

CURLcode cs_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode cs_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode cs_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}

size_t cs_writefunc_pause(void) {
    return CURL_WRITEFUNC_PAUSE;
}

CURLcode cs_easy_unpause(CURL *handle) {
    return curl_easy_pause(handle, CURLPAUSE_CONT);
}

CURLMcode cs_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

int cs_multi_next_done(CURLM *multi, CURL **handle, CURLcode *result) {
    int remaining = 0;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &remaining)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *handle = message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}

// MARK: per-client options

const char *cs_default_ca_bundle(void) {
    curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    if (info == NULL || info->age < CURLVERSION_SEVENTH) return NULL;
    return info->cainfo;
}

uint64_t cs_monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

int cs_wake_descriptor(void) {
#ifdef __linux__
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
#else
    return -1;
#endif
}

int cs_malloc_set_thresholds(int mmap_threshold, int trim_threshold) {
#ifdef __GLIBC__
    return mallopt(M_MMAP_THRESHOLD, mmap_threshold) && mallopt(M_TRIM_THRESHOLD, trim_threshold);
#else
    (void)mmap_threshold;
    (void)trim_threshold;
    return 0;
#endif
}
