#include "CurlShim.h"
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

// MARK: address guard

/// Addresses are compared in their 16-byte IPv6 form; IPv4 as IPv4-mapped (::ffff:a.b.c.d), so
/// that an IPv4-mapped IPv6 address is judged like the IPv4 address it reaches.
struct cs_address_policy {
    int refuse_link_local;
    /// Appended to while transfers run (a listener bound to port 0 is known only once bound): a
    /// slot is written before the count that covers it is published (release), and readers load
    /// the count first (acquire). Writers are serialised by the Swift side.
    int ports[CS_ADDRESS_POLICY_MAX_PORTS];
    _Atomic size_t port_count;
    unsigned char (*interfaces)[16];
    size_t interface_count;
};

static const unsigned char cs_v4_mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
static const unsigned char cs_v6_loopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
static const unsigned char cs_v6_unspecified[16] = {0};
/// fd00:ec2::254, the IPv6 address of EC2's instance metadata service.
static const unsigned char cs_v6_ec2_metadata[16] = {0xfd, 0, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54};

static int cs_sockaddr_bytes(const struct sockaddr *address, size_t length, unsigned char out[16], int *port) {
    if (address->sa_family == AF_INET && length >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)address;
        memcpy(out, cs_v4_mapped_prefix, 12);
        memcpy(out + 12, &v4->sin_addr.s_addr, 4);
        if (port) *port = ntohs(v4->sin_port);
        return 1;
    }
    if (address->sa_family == AF_INET6 && length >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)address;
        memcpy(out, v6->sin6_addr.s6_addr, 16);
        if (port) *port = ntohs(v6->sin6_port);
        return 1;
    }
    return 0;
}

static int cs_parse_address(const char *text, unsigned char out[16]) {
    struct in_addr v4;
    if (inet_pton(AF_INET, text, &v4) == 1) {
        memcpy(out, cs_v4_mapped_prefix, 12);
        memcpy(out + 12, &v4.s_addr, 4);
        return 1;
    }
    struct in6_addr v6;
    if (inet_pton(AF_INET6, text, &v6) == 1) {
        memcpy(out, v6.s6_addr, 16);
        return 1;
    }
    return 0;
}

static int cs_is_own_port(const cs_address_policy *policy, int port) {
    size_t count = atomic_load_explicit(&policy->port_count, memory_order_acquire);
    for (size_t i = 0; i < count; i++) {
        if (policy->ports[i] == port) return 1;
    }
    return 0;
}

static int cs_policy_verdict(const cs_address_policy *policy, const unsigned char a[16], int port) {
    int v4 = memcmp(a, cs_v4_mapped_prefix, 12) == 0;
    const unsigned char *b = a + 12;
    if (policy->refuse_link_local) {
        if (v4 && b[0] == 169 && b[1] == 254) {
            return (b[2] == 169 && b[3] == 254) ? CS_ADDRESS_METADATA : CS_ADDRESS_LINK_LOCAL;
        }
        if (!v4 && a[0] == 0xfe && (a[1] & 0xc0) == 0x80) return CS_ADDRESS_LINK_LOCAL;
        if (memcmp(a, cs_v6_ec2_metadata, 16) == 0) return CS_ADDRESS_METADATA;
    }
    if (!cs_is_own_port(policy, port)) return CS_ADDRESS_ALLOWED;
    if (v4 ? b[0] == 127 : memcmp(a, cs_v6_loopback, 16) == 0) return CS_ADDRESS_OWN_PORT_LOOPBACK;
    // Linux connects 0.0.0.0 (and ::) to this machine.
    if (v4 ? b[0] == 0 : memcmp(a, cs_v6_unspecified, 16) == 0) return CS_ADDRESS_OWN_PORT_UNSPECIFIED;
    for (size_t i = 0; i < policy->interface_count; i++) {
        if (memcmp(a, policy->interfaces[i], 16) == 0) return CS_ADDRESS_OWN_PORT_INTERFACE;
    }
    return CS_ADDRESS_ALLOWED;
}

void cs_address_policy_free(cs_address_policy *policy) {
    if (policy == NULL) return;
    free(policy->interfaces);
    free(policy);
}

static int cs_read_interfaces(cs_address_policy *policy) {
    struct ifaddrs *list = NULL;
    if (getifaddrs(&list) != 0) return 0;
    size_t count = 0;
    for (struct ifaddrs *entry = list; entry != NULL; entry = entry->ifa_next) {
        if (entry->ifa_addr != NULL && (entry->ifa_addr->sa_family == AF_INET || entry->ifa_addr->sa_family == AF_INET6)) count++;
    }
    policy->interfaces = calloc(count > 0 ? count : 1, 16);
    if (policy->interfaces == NULL) {
        freeifaddrs(list);
        errno = ENOMEM;
        return 0;
    }
    for (struct ifaddrs *entry = list; entry != NULL; entry = entry->ifa_next) {
        if (entry->ifa_addr == NULL) continue;
        size_t length = entry->ifa_addr->sa_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
        if (cs_sockaddr_bytes(entry->ifa_addr, length, policy->interfaces[policy->interface_count], NULL)) {
            policy->interface_count++;
        }
    }
    freeifaddrs(list);
    return 1;
}

cs_address_policy *cs_address_policy_create(int refuse_link_local) {
    cs_address_policy *policy = calloc(1, sizeof(*policy));
    if (policy == NULL) return NULL;
    policy->refuse_link_local = refuse_link_local;
    atomic_init(&policy->port_count, 0);
    if (!cs_read_interfaces(policy)) {
        int saved = errno;
        cs_address_policy_free(policy);
        errno = saved;
        return NULL;
    }
    return policy;
}

int cs_address_policy_add_port(cs_address_policy *policy, int port) {
    if (cs_is_own_port(policy, port)) return 1;
    size_t count = atomic_load_explicit(&policy->port_count, memory_order_relaxed);
    if (count >= CS_ADDRESS_POLICY_MAX_PORTS) return 0;
    policy->ports[count] = port;
    atomic_store_explicit(&policy->port_count, count + 1, memory_order_release);
    return 1;
}

int cs_address_policy_has_port(const cs_address_policy *policy, int port) {
    return cs_is_own_port(policy, port);
}

int cs_address_policy_check_text(const cs_address_policy *policy, const char *address, int port) {
    unsigned char bytes[16];
    if (!cs_parse_address(address, bytes)) return -1;
    return cs_policy_verdict(policy, bytes, port);
}

size_t cs_address_policy_interface_count(const cs_address_policy *policy) {
    return policy->interface_count;
}

/// Keeps the first refusal: the one the transfer's error names.
static void cs_guard_record(cs_address_guard *guard, int verdict, const unsigned char a[16], int port) {
    if (guard->verdict != CS_ADDRESS_ALLOWED) return;
    guard->verdict = verdict;
    char text[INET6_ADDRSTRLEN];
    if (memcmp(a, cs_v4_mapped_prefix, 12) == 0) {
        inet_ntop(AF_INET, a + 12, text, sizeof(text));
        snprintf(guard->address, sizeof(guard->address), "%s:%d", text, port);
    } else {
        inet_ntop(AF_INET6, a, text, sizeof(text));
        snprintf(guard->address, sizeof(guard->address), "[%s]:%d", text, port);
    }
}

/// Opens the socket as curl's default does, unless the address is refused: then no socket
/// exists and no packet leaves; curl tries the host's next address or fails with COULDNT_CONNECT.
static curl_socket_t cs_guard_open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *address) {
    cs_address_guard *guard = clientp;
    unsigned char bytes[16];
    int port = 0;
    if (purpose == CURLSOCKTYPE_IPCXN && cs_sockaddr_bytes(&address->addr, address->addrlen, bytes, &port)) {
        int verdict = cs_policy_verdict(guard->policy, bytes, port);
        if (verdict != CS_ADDRESS_ALLOWED) {
            cs_guard_record(guard, verdict, bytes, port);
            return CURL_SOCKET_BAD;
        }
    }
    int type = address->socktype;
#ifdef SOCK_CLOEXEC
    type |= SOCK_CLOEXEC;
#endif
    return socket(address->family, type, address->protocol);
}

/// A reused connection was opened by some earlier transfer, possibly an unguarded one.
static int cs_guard_prerequest(void *clientp, char *primary_ip, char *local_ip, int primary_port, int local_port) {
    (void)local_ip;
    (void)local_port;
    cs_address_guard *guard = clientp;
    unsigned char bytes[16];
    if (primary_ip == NULL || !cs_parse_address(primary_ip, bytes)) return CURL_PREREQFUNC_OK;
    int verdict = cs_policy_verdict(guard->policy, bytes, primary_port);
    if (verdict == CS_ADDRESS_ALLOWED) return CURL_PREREQFUNC_OK;
    cs_guard_record(guard, verdict, bytes, primary_port);
    return CURL_PREREQFUNC_ABORT;
}

CURLcode cs_easy_set_address_guard(CURL *handle, cs_address_guard *guard) {
    CURLcode rc = curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, cs_guard_open_socket);
    if (rc == CURLE_OK) rc = curl_easy_setopt(handle, CURLOPT_OPENSOCKETDATA, guard);
    if (rc == CURLE_OK) rc = curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, cs_guard_prerequest);
    if (rc == CURLE_OK) rc = curl_easy_setopt(handle, CURLOPT_PREREQDATA, guard);
    return rc;
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
