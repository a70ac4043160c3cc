/* The WebDAV request parsing's fuzz properties (fuzz_dav_props.c). The first byte picks
 * what the rest is (modulo 6): 0 a request path, 1 a Destination URL, 2 an If header,
 * 3, 4 and 5 a PROPFIND, PROPPATCH and LOCK body. */
#ifndef ANIMFS_FUZZ_DAV_PROPS_H
#define ANIMFS_FUZZ_DAV_PROPS_H

#include <stddef.h>
#include <stdint.h>

void dav_fuzz_one(const uint8_t *data, size_t size);

#endif
