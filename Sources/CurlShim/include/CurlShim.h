#ifndef CURLSHIM_H
#define CURLSHIM_H

// Typed, non-variadic wrappers around libcurl for Swift. Swift never calls the variadic
// curl_easy_setopt / curl_easy_getinfo / curl_multi_setopt directly: each option kind has
// one wrapper here with the exact C type libcurl expects for it.

#include <curl/curl.h>
#include <stdint.h>

/// Calls curl_global_init(CURL_GLOBAL_DEFAULT) once per process; returns its result.
CURLcode cs_global_init_once(void);

// MARK: easy setopt, one wrapper per option kind

CURLcode cs_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode cs_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
/// Strings (curl copies them), slists and opaque pointers (CURLOPT_PRIVATE, *DATA, ERRORBUFFER).
CURLcode cs_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode cs_easy_setopt_string(CURL *handle, CURLoption option, const char *value);

/// CURLOPT_WRITEFUNCTION / CURLOPT_HEADERFUNCTION: function pointer plus its userdata option.
typedef size_t (*cs_data_callback)(char *data, size_t size, size_t count, void *userdata);
CURLcode cs_easy_set_write_callback(CURL *handle, cs_data_callback callback, void *userdata);
CURLcode cs_easy_set_header_callback(CURL *handle, cs_data_callback callback, void *userdata);

// MARK: easy getinfo

CURLcode cs_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode cs_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode cs_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value);

// MARK: pause

/// CURL_WRITEFUNC_PAUSE, the value a write callback returns to pause its transfer.
size_t cs_writefunc_pause(void);
/// curl_easy_pause(handle, CURLPAUSE_CONT).
CURLcode cs_easy_unpause(CURL *handle);

// MARK: multi

CURLMcode cs_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

/// One finished transfer taken from curl_multi_info_read. Returns 1 and fills the outputs
/// when a CURLMSG_DONE message was read, 0 when the queue is empty.
int cs_multi_next_done(CURLM *multi, CURL **handle, CURLcode *result);

// MARK: per-client options

/// The CA bundle file this libcurl uses by default (curl_version_info's cainfo), or NULL.
const char *cs_default_ca_bundle(void);

// MARK: address guard

/// Why the address guard refused an address (0: it did not).
typedef enum {
    CS_ADDRESS_ALLOWED = 0,
    CS_ADDRESS_LINK_LOCAL = 1,
    CS_ADDRESS_METADATA = 2,
    CS_ADDRESS_OWN_PORT_LOOPBACK = 3,
    CS_ADDRESS_OWN_PORT_UNSPECIFIED = 4,
    CS_ADDRESS_OWN_PORT_INTERFACE = 5,
} cs_address_verdict;

/// What a guarded transfer may not connect to. Made once per client; afterwards only its list of
/// own ports grows (lock-free for readers), so the curl thread reads it without a lock.
typedef struct cs_address_policy cs_address_policy;

#define CS_ADDRESS_POLICY_MAX_PORTS 64

/// A policy refusing link-local and metadata addresses (when `refuse_link_local`) and its own
/// ports (none yet) on loopback, the unspecified address and this machine's interface addresses
/// (read now with getifaddrs). NULL with errno set when getifaddrs or an allocation fails.
cs_address_policy *cs_address_policy_create(int refuse_link_local);
/// Adds one of this process's listening ports; 0 when the policy holds
/// CS_ADDRESS_POLICY_MAX_PORTS already. Callers serialise calls to it; readers need no lock.
int cs_address_policy_add_port(cs_address_policy *policy, int port);
int cs_address_policy_has_port(const cs_address_policy *policy, int port);
void cs_address_policy_free(cs_address_policy *policy);
/// The verdict for a numeric IPv4 or IPv6 address (no brackets) and port; -1 when `address`
/// is not one.
int cs_address_policy_check_text(const cs_address_policy *policy, const char *address, int port);
/// How many interface addresses the policy holds (tests).
size_t cs_address_policy_interface_count(const cs_address_policy *policy);

/// One guarded transfer's state: the policy, and the first refusal, written by the callbacks on
/// the curl thread and read there when the transfer ends.
typedef struct {
    const cs_address_policy *policy;
    int verdict;
    /// "192.0.2.1:80" or "[2001:db8::1]:443".
    char address[64];
} cs_address_guard;

/// Guards a transfer: CURLOPT_OPENSOCKETFUNCTION refuses a new connection to a refused address
/// before its socket exists (after DNS, for every redirect), CURLOPT_PREREQFUNCTION refuses a
/// request on a reused connection that was opened to one by an unguarded transfer.
CURLcode cs_easy_set_address_guard(CURL *handle, cs_address_guard *guard);

// MARK: misc

/// Monotonic clock in nanoseconds (CLOCK_MONOTONIC).
uint64_t cs_monotonic_ns(void);

/// A non-blocking, close-on-exec eventfd (Swift's Glibc module does not import sys/eventfd.h):
/// the curl thread's wake-up. -1 with errno set when it cannot be made.
int cs_wake_descriptor(void);

/// glibc's mallopt(M_MMAP_THRESHOLD) and mallopt(M_TRIM_THRESHOLD), which Swift's Glibc module
/// does not import. Returns 0 when the C library is not glibc or refused a value.
int cs_malloc_set_thresholds(int mmap_threshold, int trim_threshold);

#endif
