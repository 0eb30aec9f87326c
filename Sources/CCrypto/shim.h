// OpenSSL's libcrypto, for the SHA-256 that names the bodies of a recording bundle.
#include <openssl/evp.h>
