/* SHA-256 (FIPS 180-4), for certificates: a digest of the canonical
 * instance identifies exactly what was proven. */
#ifndef PIPEOPT_SHA256_H
#define PIPEOPT_SHA256_H

#include <stddef.h>

/* Digest of data as 64 lowercase hex characters plus NUL. */
void sha256_hex(const void *data, size_t len, char out[65]);

#endif
