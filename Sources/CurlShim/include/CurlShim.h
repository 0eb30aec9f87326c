#ifndef CURLSHIM_H
#define CURLSHIM_H
#include <curl/curl.h>
#endif
